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

namespace {

void start_daemon(const DaemonConnection& connection, const GlobalOptions& globals,
                  std::ostream& diagnostics) {
  DaemonLaunch launch;
  launch.binary = find_daemon_binary(current_daemon_search_places());
  launch.arguments = daemon_arguments(globals);
  launch.state_dir = connection.config.state_dir;
  start_daemon_and_wait(connection.client, launch, diagnostics);
}

[[noreturn]] void daemon_broke_off(const DaemonConnection& connection, const std::string& what) {
  std::throw_with_nested(DaemonUnavailableError(
      "The daemon on " + connection.client.socket_path() + " " + what + ": see " +
      connection.config.state_dir +
      "/daemon.log, or stop it and start it again with `kode-gopher daemon`"));
}

}  // namespace

DaemonConnection open_daemon_connection(const GlobalOptions& globals, std::ostream& diagnostics) {
  kg::config::DaemonConfig config = load_cli_config(globals, diagnostics);
  DaemonClient client(globals.socket_path.empty() ? config.socket_path : globals.socket_path);
  return {std::move(config), std::move(client)};
}

DaemonConnection connect_to_daemon(const GlobalOptions& globals, std::ostream& diagnostics) {
  DaemonConnection connection = open_daemon_connection(globals, diagnostics);
  try {
    connection.client.get("/v1/health", std::chrono::seconds(10));
    return connection;
  } catch (const kg::net::HttpTransportError& e) {
    if (!e.connect_failed()) daemon_broke_off(connection, "does not answer GET /v1/health");
  }
  start_daemon(connection, globals, diagnostics);
  return connection;
}

rapidjson::Document with_daemon(const DaemonConnection& connection, const GlobalOptions& globals,
                                std::ostream& diagnostics,
                                const std::function<rapidjson::Document()>& request) {
  try {
    return request();
  } catch (const kg::net::HttpTransportError& e) {
    if (!e.connect_failed()) daemon_broke_off(connection, "broke off the exchange");
  }
  start_daemon(connection, globals, diagnostics);
  return request();
}

}  // namespace kg::cli
