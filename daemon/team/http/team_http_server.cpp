#include "team_http_server.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <algorithm>

#include "team_connection.hpp"

namespace kg::team {
namespace {

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
  tracker_ = std::make_unique<ConnectionTracker>(options.connections, logger);
  // A quarter of the threads at most for work without sign-in; the rest stay for signed-in
  // users (docs/team-mode.md, "Slow and unknown clients").
  gate_ = std::make_unique<UnauthenticatedGate>(
      options.unauthenticated_per_minute, std::max(1, options.max_threads / 4));
  handler_ = std::make_unique<TeamRequestHandler>(options.max_request_bytes, endpoint, oauth,
                                                  *gate_, *tracker_, logger, options.metrics);
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(options.max_threads);
  // Waiting connections are counted per address and closed at their header deadline.
  params->setMaxQueued(1024);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(options.connections.keep_alive.count(), 0));
  // Each read or write on its own; the tracker bounds the sum.
  params->setTimeout(Poco::Timespan(
      std::max(options.connections.header_timeout, options.connections.body_timeout).count(), 0));
  threads_ = std::make_unique<Poco::ThreadPool>(2, options.max_threads, 60);
  server_ = std::make_unique<Poco::Net::TCPServer>(
      new TeamConnectionFactory(params, *handler_, *tracker_), *threads_, socket, params);
  server_->setConnectionFilter(new TeamConnectionFilter(*tracker_, !options.tls_certificate.empty()));
}

TeamHttpServer::~TeamHttpServer() { stop(); }

void TeamHttpServer::start() {
  server_->start();
  running_ = true;
}

void TeamHttpServer::stop() {
  if (!running_) return;
  running_ = false;
  server_->stop();        // no new connections
  tracker_->close_all();  // ends the requests in flight, event streams included
  threads_->joinAll();
}

}  // namespace kg::team
