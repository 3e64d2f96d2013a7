#include "request_router.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>

#include <array>
#include <chrono>
#include <functional>
#include <string_view>

#include "error_chain.hpp"
#include "sandbox_routes.hpp"
#include "tar_extractor.hpp"

namespace kg::sandbox {
namespace {

using RouteFunction = void (*)(RouteContext&, Exchange&);
using Responder = std::function<void(RouteContext&, Exchange&)>;

struct Route {
  std::string_view method;
  std::string_view path;
  bool takes_path;  // also matches path + "/<encoded path>"
  RouteFunction serve;
};

constexpr std::array kRoutes{
    Route{"GET", "/", false, serve_status},
    Route{"POST", "/execute", false, serve_execute},
    Route{"POST", "/upload", false, serve_upload},
    Route{"POST", "/upload-tar", false, serve_upload_tar},
    Route{"POST", "/reset", false, serve_reset},
    Route{"GET", "/download", true, serve_download},
    Route{"GET", "/list", true, serve_list},
    Route{"GET", "/exists", true, serve_exists},
    Route{"GET", "/download-tar", true, serve_download_tar},
};

// The status and message for what a route threw.
std::pair<int, std::string> describe_failure(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const HttpError& e) {
    return {e.status(), e.what()};
  } catch (const InvalidPathError& e) {
    return {400, e.what()};
  } catch (const PathEscapeError& e) {
    return {403, e.what()};
  } catch (const TarEntryRejected& e) {
    return {400, e.what()};
  } catch (const TarFormatError& e) {
    return {400, e.what()};
  } catch (const TarLimitExceeded& e) {
    return {413, e.what()};
  } catch (const Poco::Exception& e) {
    return {500, e.displayText()};
  } catch (const std::exception& e) {
    return {500, describe_error_chain(e)};
  } catch (...) {
    return {500, "unknown error"};
  }
}

class RouteHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  RouteHandler(RouteContext& context, Responder serve, std::string path_tail = {})
      : context_(context), serve_(std::move(serve)), path_tail_(std::move(path_tail)) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    const auto started = std::chrono::steady_clock::now();
    const std::string& uri = request.getURI();
    const auto query_start = uri.find('?');
    Exchange exchange{request, response, path_tail_,
                      query_start == std::string::npos ? "" : uri.substr(query_start + 1)};
    std::string failure;
    try {
      serve_(context_, exchange);
    } catch (...) {
      const auto [status, message] = describe_failure(std::current_exception());
      failure = " (" + message + ")";
      if (!response.sent()) {
        try {
          send_json_error(response, status, message);
        } catch (...) {
          failure += " (the error answer could not be sent: the client is gone)";
        }
      }
    }
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    context_.logger.log(log::LogLevel::info,
                        request.getMethod() + " " + uri + " " +
                            std::to_string(static_cast<int>(response.getStatus())) + " " +
                            std::to_string(elapsed.count()) + "ms" + failure);
  }

 private:
  RouteContext& context_;
  Responder serve_;
  std::string path_tail_;
};

std::string list_of_routes() {
  std::string text;
  for (const Route& route : kRoutes) {
    if (!text.empty()) text += ", ";
    text += std::string(route.method) + " " + std::string(route.path) +
            (route.takes_path ? "/<path>" : "");
  }
  return text;
}

}  // namespace

Poco::Net::HTTPRequestHandler* RequestRouter::createRequestHandler(
    const Poco::Net::HTTPServerRequest& request) {
  const std::string& uri = request.getURI();
  const std::string_view path = std::string_view(uri).substr(0, uri.find('?'));
  std::string allowed;
  for (const Route& route : kRoutes) {
    const bool exact = path == route.path;
    const bool with_path = route.takes_path && path.size() > route.path.size() &&
                           path.substr(0, route.path.size()) == route.path &&
                           path[route.path.size()] == '/';
    if (!exact && !with_path) continue;
    if (route.method != request.getMethod()) {
      allowed += (allowed.empty() ? "" : ", ") + std::string(route.method);
      continue;
    }
    return new RouteHandler(context_, route.serve,
                            with_path ? std::string(path.substr(route.path.size() + 1)) : "");
  }
  if (!allowed.empty()) {
    const std::string message = request.getMethod() + " is not allowed on " +
                                std::string(path) + ": use " + allowed;
    return new RouteHandler(context_, [allowed, message](RouteContext&, Exchange& exchange) {
      exchange.response.set("Allow", allowed);
      throw HttpError(405, message);
    });
  }
  const std::string message =
      "No route for " + request.getMethod() + " " + std::string(path) + ": the routes are " +
      list_of_routes();
  return new RouteHandler(context_,
                          [message](RouteContext&, Exchange&) { throw HttpError(404, message); });
}

}  // namespace kg::sandbox
