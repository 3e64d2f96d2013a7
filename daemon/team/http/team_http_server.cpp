#include "team_http_server.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>

#include "capped_request_body.hpp"
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
    if (fd_ < 0) return false;
    char byte;
    const ssize_t got = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (got == 0) return true;
    return got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
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

class TeamRequestHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  TeamRequestHandler(const HttpServerOptions& options, McpEndpoint& endpoint, OAuthRoutes* oauth,
                     plugin::Logger& logger)
      : options_(options), endpoint_(endpoint), oauth_(oauth), logger_(logger) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    PocoResponseStream out(request, response);
    try {
      HttpExchange exchange = exchange_of(request);
      logger_.log(plugin::LogLevel::debug, "HTTP " + exchange.method + " " + exchange.path);
      if (exchange.path == "/mcp" || exchange.path == "/mcp/") {
        endpoint_.serve(std::move(exchange),
                        [&request, &out](std::uint64_t limit) {
                          std::string body = read_body(request, limit);
                          out.body_read();
                          return body;
                        },
                        out);
        return;
      }
      if (oauth_ != nullptr && oauth_->serves(exchange.path)) {
        if (exchange.method == "POST") {
          exchange.body = read_body(request, options_.max_request_bytes);
          out.body_read();
        }
        out.send(oauth_->handle(exchange));
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

 private:
  const HttpServerOptions& options_;
  McpEndpoint& endpoint_;
  OAuthRoutes* oauth_;
  plugin::Logger& logger_;
};

class TeamHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  TeamHandlerFactory(HttpServerOptions options, McpEndpoint& endpoint, OAuthRoutes* oauth,
                     plugin::Logger& logger)
      : options_(std::move(options)), endpoint_(endpoint), oauth_(oauth), logger_(logger) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
    return new TeamRequestHandler(options_, endpoint_, oauth_, logger_);
  }

 private:
  HttpServerOptions options_;
  McpEndpoint& endpoint_;
  OAuthRoutes* oauth_;
  plugin::Logger& logger_;
};

Poco::Net::ServerSocket bind_socket(const HttpServerOptions& options) {
  const Poco::Net::SocketAddress address(options.listen);
  if (options.tls_certificate.empty()) return Poco::Net::ServerSocket(address, 64);
  Poco::Net::initializeSSL();
  Poco::Net::Context::Ptr context = new Poco::Net::Context(
      Poco::Net::Context::TLS_SERVER_USE, options.tls_key, options.tls_certificate, "",
      Poco::Net::Context::VERIFY_NONE);
  return Poco::Net::SecureServerSocket(address, 64, context);
}

}  // namespace

TeamHttpServer::TeamHttpServer(HttpServerOptions options, McpEndpoint& endpoint,
                               OAuthRoutes* oauth, plugin::Logger& logger) {
  Poco::Net::ServerSocket socket;
  try {
    socket = bind_socket(options);
  } catch (...) {
    std::throw_with_nested(std::runtime_error(
        "Cannot serve HTTP on " + options.listen +
        (options.tls_certificate.empty() ? std::string()
                                         : " with TLS from " + options.tls_certificate + " and " +
                                               options.tls_key) +
        " ([http] listen)"));
  }
  bound_ = socket.address().toString();
  auto params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(options.max_threads);
  params->setMaxQueued(256);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(30, 0));
  params->setTimeout(Poco::Timespan(60, 0));
  threads_ = std::make_unique<Poco::ThreadPool>(2, options.max_threads, 60);
  server_ = std::make_unique<Poco::Net::HTTPServer>(
      new TeamHandlerFactory(options, endpoint, oauth, logger), *threads_, socket, params);
}

TeamHttpServer::~TeamHttpServer() { stop(); }

void TeamHttpServer::start() {
  server_->start();
  running_ = true;
}

void TeamHttpServer::stop() {
  if (!running_) return;
  running_ = false;
  server_->stopAll(true);
  threads_->joinAll();
}

}  // namespace kg::team
