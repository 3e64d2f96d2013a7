// One request of team mode's HTTP server, from the connection's own thread
// (team_connection.cpp): `/mcp` to the MCP endpoint, the OAuth paths to the authorization
// server (auth = oauth), `/metrics` to the daemon's numbers, anything else 404. Requests without
// sign-in pass the UnauthenticatedGate first; the body's end moves the connection past its body
// deadline (connection_tracker.hpp). Answers every failure itself; throws nothing.
#pragma once

#include <functional>
#include <string>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include "connection_tracker.hpp"
#include "host_services.hpp"
#include "mcp_endpoint.hpp"
#include "oauth_routes.hpp"
#include "unauthenticated_gate.hpp"

namespace kg::team {

class TeamRequestHandler {
 public:
  // oauth may be null (auth = none: /mcp needs no sign-in). All are borrowed.
  // metrics: GET /metrics's body (docs/metrics.md); empty: not served.
  TeamRequestHandler(std::uint64_t max_request_bytes, McpEndpoint& endpoint, OAuthRoutes* oauth,
                     UnauthenticatedGate& gate, ConnectionTracker& tracker, plugin::Logger& logger,
                     std::function<std::string()> metrics)
      : max_request_bytes_(max_request_bytes), endpoint_(endpoint), oauth_(oauth), gate_(gate),
        tracker_(tracker), logger_(logger), metrics_(std::move(metrics)) {}

  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
              const Poco::Net::StreamSocket& connection);

 private:
  const std::uint64_t max_request_bytes_;
  McpEndpoint& endpoint_;
  OAuthRoutes* oauth_;
  UnauthenticatedGate& gate_;
  ConnectionTracker& tracker_;
  plugin::Logger& logger_;
  std::function<std::string()> metrics_;
};

}  // namespace kg::team
