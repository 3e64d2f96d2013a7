// What every subcommand shares: the global options, and the action a subcommand chooses while
// the command line is parsed (run after parsing, so its exceptions reach run_cli's one handler).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace kg::cli {

struct GlobalOptions {
  std::string config_path;  // --config FILE; empty when not given
  std::string socket_path;  // --socket PATH; empty when not given (the config's socket is used)

  std::optional<std::string> explicit_config() const {
    return config_path.empty() ? std::nullopt : std::optional<std::string>(config_path);
  }
};

// Runs the chosen subcommand and returns the process exit code (exit_codes.hpp).
using CommandAction = std::function<int()>;

}  // namespace kg::cli
