// The command line of kode-gopher-sandbox, parsed with CLI11. Used by main() once at start.
#pragma once

#include <string>
#include <variant>

#include "sandbox_server_options.hpp"

namespace kg::sandbox {

struct ServerCommandLine {
  std::string listen = "tcp:0.0.0.0:8888";
  SandboxServerOptions options;
};

// The parsed options, or the exit code when the process should stop here (--help printed, or a
// usage error printed to stderr).
std::variant<ServerCommandLine, int> parse_command_line(int argc, char** argv);

}  // namespace kg::sandbox
