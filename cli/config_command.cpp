// `kode-gopher config check [FILE]`: every issue in a config file, without a daemon.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "daemon_config.hpp"
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
  bool has_errors = false;
  const std::vector<kg::config::ConfigIssue> issues = kg::config::check_config_file(path);
  for (const kg::config::ConfigIssue& issue : issues) {
    const bool is_error = issue.severity == kg::config::ConfigIssue::Severity::error;
    has_errors = has_errors || is_error;
    out << (is_error ? "error: " : "warning: ") << issue.to_string() << '\n';
  }
  if (issues.empty()) out << path << ": OK\n";
  return to_int(exit_code_for_config_check(has_errors));
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
