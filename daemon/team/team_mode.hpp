// Team mode ([http] listen set; docs/team-mode.md): everything the daemon runs to serve MCP over
// streamable HTTP — who a request comes from (OAuth sign-in, or the one local user on loopback),
// the MCP sessions per user with their limits and idle expiry, the `/mcp` endpoint, the OAuth
// authorization server, and the HTTP server in front. Owned by Instance, built after the daemon
// API's context (whose routes the MCP tools call in-process) and stopped before it.
#pragma once

#include <memory>

#include "api_context.hpp"
#include "daemon_config.hpp"
#include "host_services.hpp"

namespace kg::team {

class TeamMode {
 public:
  // Binds the address; throws std::runtime_error (nested) when it cannot, or when the OAuth
  // settings cannot be used (a missing client secret file).
  TeamMode(const config::DaemonConfig& config, api::ApiContext& api, plugin::Logger& logger);
  ~TeamMode();

  void start();
  // Refuses new requests, ends every MCP session (releasing sandboxes), waits for handlers.
  void stop();

  const std::string& bound_address() const;
  // What /v1/health says of the endpoint.
  const api::TeamEndpointStatus& status() const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace kg::team
