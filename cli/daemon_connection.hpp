// How a command that needs the daemon gets to it: load the config (for the socket, the state
// dir and the limits), GET /v1/health, and start the daemon when nobody listens.
// Main thread.
#pragma once

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

}  // namespace kg::cli
