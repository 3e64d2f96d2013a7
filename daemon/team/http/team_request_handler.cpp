#include "team_request_handler.hpp"

#include "prometheus_text.hpp"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/URI.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>

#include "capped_request_body.hpp"
#include "peer_hangup.hpp"
#include "error_chain.hpp"

namespace kg::team {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

HttpExchange exchange_of(Poco::Net::HTTPServerRequest& request) {
  HttpExchange exchange;
  exchange.method = request.getMethod();
  const Poco::URI uri(request.getURI());
  exchange.path = uri.getPath();
  exchange.query = uri.getRawQuery();
  exchange.client_address = request.clientAddress().host().toString();
  for (const auto& [name, value] : request) {
    std::string& slot = exchange.headers[lowercase(name)];
    slot += (slot.empty() ? "" : ", ") + value;
  }
  return exchange;
}

std::string read_body(Poco::Net::HTTPServerRequest& request, std::uint64_t limit) {
  return net::read_capped_body(request, limit, [limit](const std::string& what) {
    throw BodyTooLargeError(what + " is over this server's limit of " + std::to_string(limit) +
                            " bytes ([http] max_request_bytes); send a smaller request");
  });
}

class PocoResponseStream final : public ResponseStream {
 public:
  PocoResponseStream(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response)
      : response_(response),
        has_body_(request.getChunkedTransferEncoding() ||
                  (request.hasContentLength() && request.getContentLength64() > 0)) {
    if (auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request)) {
      fd_ = impl->socket().impl()->sockfd();
      socket_ = impl->socket();
    }
  }

  // The request body was read to its end, so the connection may carry the next request.
  void body_read() { body_read_ = true; }

  void send(const HttpReply& reply) override {
    try {
      // An answer given before the body was read (a refused Origin, a missing token, a body
      // too large) leaves the body in the connection: close it rather than read it as the next
      // request.
      if (has_body_ && !body_read_) response_.setKeepAlive(false);
      response_.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
      if (!reply.content_type.empty()) response_.setContentType(reply.content_type);
      for (const auto& [name, value] : reply.headers) response_.add(name, value);
      response_.setContentLength64(static_cast<Poco::Int64>(reply.body.size()));
      std::ostream& out = response_.send();
      out.write(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
      out.flush();
      if (has_body_ && !body_read_) drain_unread_body();
    } catch (...) {
      // The client went away; nothing to tell it.
    }
  }

  bool begin_events(const std::vector<std::pair<std::string, std::string>>& headers) override {
    try {
      if (has_body_ && !body_read_) response_.setKeepAlive(false);
      response_.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
      response_.setContentType("text/event-stream");
      response_.setChunkedTransferEncoding(true);
      for (const auto& [name, value] : headers) response_.add(name, value);
      stream_ = &response_.send();
      stream_->flush();
      return stream_->good();
    } catch (...) {
      return false;
    }
  }

  bool event(std::string_view data) override {
    return write("event: message\ndata: " + std::string(data) + "\n\n");
  }
  bool keepalive() override { return write(": keepalive\n\n"); }

  bool client_gone() override {
    return fd_ >= 0 && net::peer_hung_up(fd_);
  }

 private:
  bool write(const std::string& text) {
    if (stream_ == nullptr) return false;
    try {
      stream_->write(text.data(), static_cast<std::streamsize>(text.size()));
      stream_->flush();
      return stream_->good();
    } catch (...) {
      return false;
    }
  }

  // A client still sending a body the answer refused would get a reset instead of the answer
  // when the connection closes with its bytes unread: stop sending, then read and drop what
  // arrives for a little while (a "lingering close", as web servers do).
  void drain_unread_body() noexcept {
    try {
      socket_.shutdownSend();
      socket_.setReceiveTimeout(Poco::Timespan(0, 200'000));
      char buffer[64 * 1024];
      std::size_t drained = 0;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (drained < (64u << 20) && std::chrono::steady_clock::now() < until) {
        const int got = socket_.receiveBytes(buffer, sizeof buffer);
        if (got <= 0) break;
        drained += static_cast<std::size_t>(got);
      }
    } catch (...) {
      // A timeout or a reset: the client has what it needs, or is gone.
    }
  }

  Poco::Net::HTTPServerResponse& response_;
  Poco::Net::StreamSocket socket_;
  bool has_body_;
  bool body_read_ = false;
  std::ostream* stream_ = nullptr;
  int fd_ = -1;
};

}  // namespace

void TeamRequestHandler::handle(Poco::Net::HTTPServerRequest& request,
                                Poco::Net::HTTPServerResponse& response,
                                const Poco::Net::StreamSocket& connection) {
  PocoResponseStream out(request, response);
  auto read_request_body = [&](std::uint64_t limit) {
    std::string body = read_body(request, limit);
    out.body_read();
    tracker_.handling(connection);  // past the body deadline: the handler's time now
    return body;
  };
  try {
    HttpExchange exchange = exchange_of(request);
    logger_.log(plugin::LogLevel::debug, "HTTP " + exchange.method + " " + exchange.path);
    const bool mcp = exchange.path == "/mcp" || exchange.path == "/mcp/";
    // Work for a signed-in user (or, with auth = none, the one local user): /mcp with a
    // bearer token, which the endpoint checks before anything else. The rest is bounded per
    // address and in how many threads it may hold (docs/team-mode.md).
    const bool signed_in = mcp && (oauth_ == nullptr || !exchange.header("authorization").empty());
    UnauthenticatedGate::Slot slot;
    if (!signed_in) {
      if (auto refusal = gate_.admit(exchange.client_address, slot)) {
        out.send(*refusal);
        return;
      }
    }
    if (mcp) {
      endpoint_.serve(std::move(exchange), read_request_body, out);
      return;
    }
    if (oauth_ != nullptr && oauth_->serves(exchange.path)) {
      if (exchange.method == "POST") exchange.body = read_request_body(max_request_bytes_);
      out.send(oauth_->handle(exchange));
      return;
    }
    if (exchange.path == "/metrics" && metrics_) {  // aggregates only, no sign-in (docs/metrics.md)
      HttpReply reply;
      if (exchange.method == "GET") {
        reply.content_type = std::string(metrics::kPrometheusContentType);
        reply.body = metrics_();
      } else {
        reply.status = 405;
        reply.headers.emplace_back("Allow", "GET");
        reply.body = R"({"error":"invalid_request","error_description":"/metrics answers GET only"})";
      }
      out.send(reply);
      return;
    }
    HttpReply missing;
    missing.status = 404;
    missing.body = R"({"error":"not_found","error_description":"No such path: the MCP endpoint is /mcp"})";
    out.send(missing);
  } catch (const BodyTooLargeError& e) {
    HttpReply reply;
    reply.status = 413;
    reply.body = std::string(R"({"error":"invalid_request","error_description":)") + "\"" +
                 "request body too large" + "\"}";
    out.send(reply);
  } catch (const net::IncompleteBodyError& e) {
    HttpReply reply;
    reply.status = 400;
    reply.body = std::string(R"({"error":"invalid_request","error_description":")") + e.what() +
                 "\"}";  // the message is plain ASCII without quotes (capped_request_body.cpp)
    out.send(reply);
  } catch (...) {
    const std::string what = describe_error_chain(std::current_exception());
    // The path only: a query may carry a code or state (/oauth/callback).
    logger_.log(plugin::LogLevel::error, "HTTP " + request.getMethod() + " " +
                                             Poco::URI(request.getURI()).getPath() + ": " + what);
    HttpReply reply;
    reply.status = 500;
    reply.body = R"({"error":"server_error","error_description":"internal error; see the daemon's log"})";
    out.send(reply);
  }
}

}  // namespace kg::team
