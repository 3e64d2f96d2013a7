// `kode-gopher daemon [ARGS...]`: become kode-gopherd in the foreground, with this invocation's
// --config and --socket, followed by ARGS untouched (so `kode-gopher daemon --help` is the
// daemon's help).
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unistd.h>

#include "cli_errors.hpp"
#include "commands.hpp"
#include "daemon_binary_locator.hpp"
#include "daemon_launcher.hpp"

namespace kg::cli {

int exec_daemon(const GlobalOptions& globals, const std::vector<std::string>& passed_arguments) {
  const std::string binary = find_daemon_binary(current_daemon_search_places());
  std::vector<std::string> arguments{binary};
  for (std::string& argument : daemon_arguments(globals)) arguments.push_back(std::move(argument));
  arguments.insert(arguments.end(), passed_arguments.begin(), passed_arguments.end());
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  throw DaemonUnavailableError("Cannot execute " + binary + ": " + std::strerror(errno) +
                               ": check that it is an executable kode-gopherd");
}

DaemonCommandLine split_daemon_command_line(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view token = argv[i];
    if (token == "--config" || token == "--socket") {
      ++i;  // its value
    } else if (token.starts_with("--config=") || token.starts_with("--socket=")) {
      continue;
    } else if (token.starts_with("-") || token != "daemon") {
      break;  // another subcommand, or something CLI11 should judge
    } else {
      return {i + 1, std::vector<std::string>(argv + i + 1, argv + argc)};
    }
  }
  return {argc, {}};
}

void add_daemon_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action,
                        std::vector<std::string> passed_arguments) {
  CLI::App* daemon = app.add_subcommand(
      "daemon", "Run kode-gopherd in the foreground; every argument after `daemon` goes to it");
  daemon->callback([&globals, &action, passed = std::move(passed_arguments)] {
    action = [&globals, passed] { return exec_daemon(globals, passed); };
  });
}

}  // namespace kg::cli
