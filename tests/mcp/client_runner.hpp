// Runs the real MCP clients of the `mcp` suite: installs them first (npm ci into the build
// tree, the Go SDK through the Go module proxy), then runs a client command with the variables
// that tell it where `kode-gopher serve`, its config and the daemon are.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kg::test {

struct CommandOutcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

// Runs `program args...` in `directory` with `env` added to this process's environment; the
// output is also echoed to this process's stdout so `meson test -v` shows it.
CommandOutcome run_command(const std::string& program, const std::vector<std::string>& args,
                           const std::string& directory,
                           const std::map<std::string, std::string>& env = {});

// `npm ci` in `dir` unless node_modules already matches package-lock.json; fails the test when
// the install fails.
void install_node_package(const std::string& dir);

// install_node_package($KG_MCP_NODE_DIR). Returns the Node 22 binary it installed.
std::string install_node_clients();

// The blank imports of $KG_CURATED_GO (sandbox/lockfile/curated.go), the one list of curated
// packages that tool descriptions and the prompt must name; fails the test unless there are 12.
std::vector<std::string> curated_packages();

// The environment every client gets: KG_CLI, KG_MCP_CONFIG, KG_DAEMON_SOCKET, KG_CURATED_GO.
std::map<std::string, std::string> client_env(const std::string& config_path,
                                              const std::string& socket_path);

}  // namespace kg::test
