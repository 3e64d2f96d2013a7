#include "daemon_connection.hpp"

#include "cli_errors.hpp"
#include "daemon_binary_locator.hpp"
#include "daemon_launcher.hpp"

namespace kg::cli {

kg::config::DaemonConfig load_cli_config(const GlobalOptions& globals, std::ostream& diagnostics) {
  kg::config::LoadedConfig loaded = kg::config::load_config(globals.explicit_config());
  for (const kg::config::ConfigIssue& warning : loaded.warnings) {
    diagnostics << "kode-gopher: warning: " << warning.to_string() << '\n';
  }
  return std::move(loaded.config);
}

DaemonConnection connect_to_daemon(const GlobalOptions& globals, std::ostream& diagnostics) {
  kg::config::DaemonConfig config = load_cli_config(globals, diagnostics);
  DaemonClient client(globals.socket_path.empty() ? config.socket_path : globals.socket_path);
  try {
    client.get("/v1/health", std::chrono::seconds(10));
    return {std::move(config), std::move(client)};
  } catch (const kg::net::HttpTransportError& e) {
    if (!e.connect_failed()) {
      std::throw_with_nested(DaemonUnavailableError(
          "The daemon on " + client.socket_path() +
          " does not answer GET /v1/health: see " + config.state_dir +
          "/daemon.log, or stop it and start it again with `kode-gopher daemon`"));
    }
  }
  DaemonLaunch launch;
  launch.binary = find_daemon_binary(current_daemon_search_places());
  launch.arguments = daemon_arguments(globals);
  launch.state_dir = config.state_dir;
  start_daemon_and_wait(client, launch, diagnostics);
  return {std::move(config), std::move(client)};
}

}  // namespace kg::cli
