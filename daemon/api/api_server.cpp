#include "api_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <functional>

#include "api_errors.hpp"
#include "api_routes.hpp"
#include "capped_request_body.hpp"
#include "ndjson_progress.hpp"
#include "peer_hangup.hpp"
#include "response_json.hpp"
#include "systemd_socket.hpp"
#include "unix_socket_listener.hpp"

namespace kg::api {
namespace {

// The socket file is 0600 already; the peer's credentials are checked as well, so a socket
// made reachable by mistake (a chmod, a bind mount) still serves nobody but its owner.
void require_owner(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (!impl) return;
  ucred peer{};
  socklen_t size = sizeof peer;
  if (::getsockopt(impl->socket().impl()->sockfd(), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
    throw ForbiddenError("cannot tell who is connecting; refusing");
  }
  if (peer.uid != ::geteuid()) {
    throw ForbiddenError("uid " + std::to_string(peer.uid) + " may not use this daemon; it serves uid " +
                         std::to_string(::geteuid()) + " only");
  }
}

std::string too_large(const std::string& what, std::uint64_t limit) {
  return what + " is over the daemon's limit of " + std::to_string(limit) +
         " bytes; send a smaller request, or raise [daemon] max_request_bytes";
}

// Reads the whole body, refusing one over `limit` bytes (PayloadTooLargeError) or shorter than
// its Content-Length (BadRequestError).
std::string read_body(Poco::Net::HTTPServerRequest& request, std::uint64_t limit) {
  try {
    return net::read_capped_body(request, limit, [limit](const std::string& what) {
      throw PayloadTooLargeError(too_large(what, limit));
    });
  } catch (const net::IncompleteBodyError& e) {
    throw BadRequestError(e.what());
  }
}

// The probe ApiRequest::client_gone runs for this request's connection.
std::function<bool()> hangup_probe(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (!impl) return {};
  const int fd = impl->socket().impl()->sockfd();
  return [fd] { return net::peer_hung_up(fd); };
}

class ApiRequestHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ApiRequestHandler(ApiContext& context) : context_(context) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    try {
      require_owner(request);
    } catch (...) {
      const auto error = map_exception(std::current_exception());
      context_.logger.log(plugin::LogLevel::warn, "Refused a connection: " + error.message);
      const auto body = error_json(error);
      response.setStatus(Poco::Net::HTTPResponse::HTTP_FORBIDDEN);
      response.setContentType("application/json");
      response.setContentLength64(static_cast<Poco::Int64>(body.size()));
      try {
        response.send() << body;
      } catch (...) {
      }
      return;
    }
    if (request.get("Accept", "").find("application/x-ndjson") != std::string::npos &&
        is_execute_route(request.getMethod(), Poco::URI(request.getURI()).getPath())) {
      handle_streaming(request, response);
      return;
    }
    const auto started = std::chrono::steady_clock::now();
    ApiResponse answer;
    try {
      Poco::URI uri(request.getURI());
      const ApiRequest api_request{request.getMethod(), uri.getPath(), uri.getRawQuery(),
                                   read_body(request, context_.max_request_bytes), nullptr,
                                   hangup_probe(request)};
      answer = route_request(context_, api_request);
    } catch (...) {
      const auto error = map_exception(std::current_exception());
      answer = {error.status, error_json(error)};
      if (error.status >= 500) {
        context_.logger.log(plugin::LogLevel::warn, request.getMethod() + " " + request.getURI() +
                                                        ": " + error.message);
      }
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - started).count();
    context_.logger.log(plugin::LogLevel::debug, request.getMethod() + " " + request.getURI() +
                                                     " -> " + std::to_string(answer.status) +
                                                     " (" + std::to_string(ms) + " ms)");
    try {
      response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
      response.setContentType(answer.content_type);
      response.setContentLength64(static_cast<Poco::Int64>(answer.body.size()));
      response.setKeepAlive(false);
      response.send().write(answer.body.data(), static_cast<std::streamsize>(answer.body.size()));
    } catch (...) {
      // The client went away; nothing to tell it.
    }
  }

 private:
  // Execute with progress: 200 and chunked NDJSON from the start, the outcome on the last line.
  void handle_streaming(Poco::Net::HTTPServerRequest& request,
                        Poco::Net::HTTPServerResponse& response) {
    std::string last_line;
    try {
      Poco::URI uri(request.getURI());
      ApiRequest api_request{request.getMethod(), uri.getPath(), uri.getRawQuery(),
                             read_body(request, context_.max_request_bytes), nullptr,
                             hangup_probe(request)};
      response.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
      response.setContentType("application/x-ndjson");
      response.setChunkedTransferEncoding(true);
      response.setKeepAlive(false);
      std::ostream& out = response.send();
      NdjsonProgress progress(out);
      api_request.progress = &progress;
      api_request.output = &progress;
      try {
        const auto answer = route_request(context_, api_request);
        progress.finish("{\"result\":" + answer.body + "}");
      } catch (...) {
        const auto error = map_exception(std::current_exception());
        progress.finish(error_json(error));
      }
      return;
    } catch (...) {
      // Before the headers went out: an ordinary error answer.
      const auto error = map_exception(std::current_exception());
      last_line = error_json(error);
      try {
        response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(error.status));
        response.setContentType("application/json");
        response.setContentLength64(static_cast<Poco::Int64>(last_line.size()));
        response.send() << last_line;
      } catch (...) {
      }
    }
  }

  ApiContext& context_;
};

class ApiRequestHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit ApiRequestHandlerFactory(ApiContext& context) : context_(context) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new ApiRequestHandler(context_);
  }

 private:
  ApiContext& context_;
};

}  // namespace

ApiServer::ApiServer(ApiContext& context) : context_(context) {
  // Started by a socket unit (docs/install.md): serve on the socket systemd holds, else bind one.
  auto activated = net::take_activated_unix_socket(context.socket_path);
  socket_activated_ = activated.has_value();
  if (!activated) {
    std::filesystem::create_directories(std::filesystem::path(context.socket_path).parent_path());
  }
  auto socket = activated ? *activated : net::listen_on_unix_socket(context.socket_path, 0600);
  // One thread per request: every open session's call, every caller queued for a session
  // slot, and room for the quick routes (health, cancel) beside them.
  const int max_threads = static_cast<int>(context.max_sessions + context.max_queued) + 32;
  auto params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(max_threads);
  params->setMaxQueued(256);
  params->setKeepAlive(false);
  // Calls wait for builds; the idle timeout only bounds a silent client.
  params->setTimeout(Poco::Timespan(60, 0));
  threads_ = std::make_unique<Poco::ThreadPool>(2, max_threads, 60);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new ApiRequestHandlerFactory(context_),
                                                    *threads_, socket, params);
}

ApiServer::~ApiServer() { stop(); }

void ApiServer::start() {
  server_->start();
  running_ = true;
}

void ApiServer::stop_accepting() {
  if (!running_) return;
  running_ = false;
  server_->stop();
}

void ApiServer::wait_for_requests() { threads_->joinAll(); }

}  // namespace kg::api
