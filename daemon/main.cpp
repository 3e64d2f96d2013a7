// kode-gopherd: the long-running daemon. See docs/daemon-api.md and docs/architecture.md.
#include <CLI/CLI.hpp>

#include <iostream>

#include "build_paths.hpp"
#include "daemon_config.hpp"
#include "error_chain.hpp"
#include "instance.hpp"
#include "plugin_config_check.hpp"
#include "plugin_config_reference.hpp"
#include "runtime_listing.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kode-gopherd: runs Go programs for AI agents in sandboxes"};
  kg::InstanceOptions options;
  std::string config_path, socket_path, http_listen, log_level;
  std::string check_config;
  bool prewarm = false, describe_config = false, describe_runtimes = false;
  app.add_option("--config", config_path, "config file (default: $KODE_GOPHER_CONFIG or "
                                          "$XDG_CONFIG_HOME/kode-gopher/kode-gopher.ini)");
  app.add_option("--socket", socket_path, "Unix socket to serve on (overrides [daemon] socket)");
  app.add_option("--http", http_listen,
                 "serve MCP over streamable HTTP on host:port (overrides [http] listen; "
                 "docs/team-mode.md)");
  app.add_option("--log-level", log_level, "log level on stderr (overrides [daemon] log_level)")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}))
      ->type_name("LEVEL");
  app.add_flag("--prewarm", prewarm, "build the prewarmed Go build cache if needed, then exit");
  app.add_option("--check-config", check_config,
                 "report every problem in a config file, plugin sections checked against the "
                 "plugins this daemon would load (what `kode-gopher config check` runs), then exit")
      ->type_name("FILE");
  app.add_flag("--describe-config", describe_config,
               "print the Markdown reference of the daemon's keys and of the plugin sections, "
               "from what the plugins this daemon would load declare ([plugins] dirs of "
               "--config), then exit");
  app.add_flag("--describe-runtimes", describe_runtimes,
               "print, as JSON, the runtimes a daemon with --config would offer (what `kode-gopher "
               "serve` lists when no daemon runs), from the plugins' descriptors, then exit");
  app.set_version_flag("--version", kg::kVersion);
  CLI11_PARSE(app, argc, argv);
  if (!check_config.empty()) return kg::check_config_with_plugins(check_config, std::cout);
  if (!config_path.empty()) options.config_path = config_path;
  if (!socket_path.empty()) options.socket_override = socket_path;
  if (!http_listen.empty()) options.http_listen_override = http_listen;
  if (!log_level.empty()) options.log_level_override = log_level;
  if (describe_config) return kg::describe_plugin_config(options.config_path, std::cout, std::cerr);
  if (describe_runtimes) return kg::describe_runtimes(options.config_path, std::cout, std::cerr);
  try {
    kg::Instance instance(options);
    return prewarm ? instance.prewarm() : instance.run();
  } catch (const kg::config::ConfigError& e) {
    std::cerr << "kode-gopherd: " << e.what() << std::endl;
    return 78;  // EX_CONFIG
  } catch (const std::exception& e) {
    std::cerr << "kode-gopherd: " << kg::describe_error_chain(e) << std::endl;
    return 1;
  }
}
