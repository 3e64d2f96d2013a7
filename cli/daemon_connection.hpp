// How a command that needs the daemon gets to it: load the config (for the socket, the state
// dir and the limits), GET /v1/health, and start the daemon when nobody listens.
// Main thread.
#pragma once

#include <functional>
#include <ostream>

#include "daemon_client.hpp"
#include "daemon_config.hpp"
#include "global_options.hpp"

namespace kg::cli {

struct DaemonConnection {
  kg::config::DaemonConfig config;
  DaemonClient client;
};

// load_config(--config), printing its warnings to `diagnostics`. Throws kg::config::ConfigError.
kg::config::DaemonConfig load_cli_config(const GlobalOptions& globals, std::ostream& diagnostics);

// A client for a daemon that answered /v1/health (started here when needed). Throws
// kg::config::ConfigError, DaemonUnavailableError, DaemonApiError.
DaemonConnection connect_to_daemon(const GlobalOptions& globals, std::ostream& diagnostics);

// For a command that makes one request (exec): the config and a client, with no /v1/health
// round trip first; with_daemon then finds out from the request itself whether a daemon
// listens. Throws kg::config::ConfigError.
DaemonConnection open_daemon_connection(const GlobalOptions& globals, std::ostream& diagnostics);

// Runs `request` (one exchange with connection.client). When nobody listens on the socket
// (the connection was refused, so nothing was sent), starts the daemon as connect_to_daemon
// does and runs it once more; a daemon that broke off the exchange is a DaemonUnavailableError
// that says where its log is.
rapidjson::Document with_daemon(const DaemonConnection& connection, const GlobalOptions& globals,
                                std::ostream& diagnostics,
                                const std::function<rapidjson::Document()>& request);

}  // namespace kg::cli
