// The daemon's team-mode HTTP server ([http] listen): Poco's TCPServer with connections of our
// own (team_connection.hpp) on TCP, HTTPS when [http] tls_certificate is set, dispatching `/mcp`
// to the MCP endpoint and the OAuth paths to the authorization server (when auth = oauth);
// anything else is 404. Slow clients and clients without sign-in are bounded so they cannot
// starve signed-in users (connection_tracker.hpp, unauthenticated_gate.hpp; docs/team-mode.md).
// Owned by TeamMode: start() after what it lends is ready, stop() before it goes away.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "connection_tracker.hpp"
#include "host_services.hpp"
#include "mcp_endpoint.hpp"
#include "oauth_routes.hpp"

namespace Poco {
class ThreadPool;
namespace Net {
class TCPServer;
}
}  // namespace Poco

namespace kg::team {

struct HttpServerOptions {
  std::string listen;  // host:port
  std::string tls_certificate;
  std::string tls_key;
  std::uint64_t max_request_bytes = 4u << 20;  // for the OAuth endpoints' bodies as well
  int max_threads = 64;
  ConnectionLimits connections;
  std::uint32_t unauthenticated_per_minute = 120;  // per client address
  // GET /metrics's body (docs/metrics.md); empty: the path is not served.
  std::function<std::string()> metrics;
};

class TeamRequestHandler;
class UnauthenticatedGate;

class TeamHttpServer {
 public:
  // Binds now; throws std::runtime_error naming the address (or the TLS files) when it cannot.
  // oauth may be null (auth = none).
  TeamHttpServer(HttpServerOptions options, McpEndpoint& endpoint, OAuthRoutes* oauth,
                 plugin::Logger& logger);
  ~TeamHttpServer();

  void start();
  void stop();  // stops accepting and waits for requests in flight; idempotent
  // The address it is bound to (host:port), for the log and for tests.
  const std::string& bound_address() const noexcept { return bound_; }

 private:
  // Declared in the order they are needed: the server goes first, the tracker last.
  std::unique_ptr<ConnectionTracker> tracker_;
  std::unique_ptr<UnauthenticatedGate> gate_;
  std::unique_ptr<TeamRequestHandler> handler_;
  std::unique_ptr<Poco::ThreadPool> threads_;
  std::unique_ptr<Poco::Net::TCPServer> server_;
  std::string bound_;
  bool running_ = false;
};

}  // namespace kg::team
