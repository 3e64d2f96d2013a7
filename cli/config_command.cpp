// `kode-gopher config check [FILE]`: every issue in a config file, without a running daemon:
// the daemon binary's checker (`kode-gopherd --check-config`) reports it, plugin sections
// included, as the plugins it would load declare them.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "daemon_binary_locator.hpp"
#include "daemon_config.hpp"
#include "daemon_config_checker.hpp"
#include "exit_codes.hpp"

namespace kg::cli {

int run_config_check(const GlobalOptions& globals, const std::string& file, std::ostream& out) {
  // As load_config decides: a file named on the command line or by $KODE_GOPHER_CONFIG must
  // exist; the default one may be absent.
  const bool named = !file.empty() || !globals.config_path.empty() ||
                     std::getenv("KODE_GOPHER_CONFIG") != nullptr;
  const std::string path = !file.empty()                  ? file
                           : !globals.config_path.empty() ? globals.config_path
                                                          : kg::config::default_config_path();
  if (!named && path.empty()) {
    out << "no default config file (neither XDG_CONFIG_HOME nor HOME is set); every key has its "
           "default\n";
    return to_int(ExitCode::ok);
  }
  std::error_code error;
  if (!named && !std::filesystem::exists(path, error)) {
    out << path << ": not present; every key has its default\n";
    return to_int(ExitCode::ok);
  }
  const int status =
      run_daemon_config_check(find_daemon_binary(current_daemon_search_places()), path, out);
  return to_int(exit_code_for_config_check(status != 0));
}

void add_config_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  CLI::App* config = app.add_subcommand("config", "Work with the configuration file");
  config->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  CLI::App* check = config->add_subcommand(
      "check", "Report every problem in a config file (default: --config, else the default path)");
  check->add_option("file", *file, "The config file to check")->type_name("FILE");
  check->callback([&globals, &action, file] {
    action = [&globals, file] { return run_config_check(globals, *file, std::cout); };
  });
}

}  // namespace kg::cli
