// `kode-gopher [global options] daemon ARGS...`: where the command line is cut.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "commands.hpp"

namespace {

kg::cli::DaemonCommandLine split(std::vector<std::string> arguments) {
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  return kg::cli::split_daemon_command_line(static_cast<int>(argv.size()), argv.data());
}

using Arguments = std::vector<std::string>;

}  // namespace

TEST_CASE("everything after daemon goes to kode-gopherd untouched") {
  const auto plain = split({"kode-gopher", "daemon", "--log-level", "debug", "--", "x"});
  CHECK(plain.parsed_argc == 2);
  CHECK(plain.passed_arguments == Arguments{"--log-level", "debug", "--", "x"});

  const auto with_globals = split({"kode-gopher", "--config", "daemon", "--socket=/s", "daemon",
                                   "--help"});
  CHECK(with_globals.parsed_argc == 5);
  CHECK(with_globals.passed_arguments == Arguments{"--help"});

  const auto bare = split({"kode-gopher", "daemon"});
  CHECK(bare.parsed_argc == 2);
  CHECK(bare.passed_arguments.empty());
}

TEST_CASE("other subcommands and options are left to CLI11") {
  const auto exec = split({"kode-gopher", "exec", "daemon"});
  CHECK(exec.parsed_argc == 3);
  CHECK(exec.passed_arguments.empty());

  const auto help = split({"kode-gopher", "--help", "daemon", "x"});
  CHECK(help.parsed_argc == 4);
  CHECK(help.passed_arguments.empty());
}
