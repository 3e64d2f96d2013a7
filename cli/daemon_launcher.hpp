// Starts kode-gopherd when a command finds nobody listening on the daemon socket: fully
// detached (own session, stdin /dev/null, stdout and stderr appended to <state_dir>/daemon.log),
// then waits until GET /v1/health answers. Called by connect_to_daemon and with_daemon on the
// main thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "daemon_client.hpp"
#include "global_options.hpp"

namespace kg::cli {

struct DaemonLaunch {
  std::string binary;                  // from find_daemon_binary
  std::vector<std::string> arguments;  // after argv[0], from daemon_arguments
  std::string state_dir;               // where daemon.log goes; created 0700 when missing
  std::chrono::milliseconds poll_interval{50};
  std::chrono::milliseconds deadline{30'000};
};

// The arguments this invocation hands the daemon: `--config FILE` when the CLI got --config or
// $KODE_GOPHER_CONFIG (`environment_config`) is set, `--socket PATH` when it got --socket; both
// made absolute because the daemon runs from /.
std::vector<std::string> daemon_arguments(const GlobalOptions& globals,
                                          const std::optional<std::string>& environment_config);
// The same with this process's $KODE_GOPHER_CONFIG (unset or empty: none).
std::vector<std::string> daemon_arguments(const GlobalOptions& globals);

// Prints "kode-gopher: starting the daemon (log: <state_dir>/daemon.log)" to `progress`, starts
// the daemon and returns once `client` gets an answer from /v1/health. Throws
// DaemonUnavailableError when it cannot start, exits first (with the log's last 20 lines), or
// does not answer before the deadline. The log lines shown are only this start's.
void start_daemon_and_wait(const DaemonClient& client, const DaemonLaunch& launch,
                           std::ostream& progress);

// The last `count` lines of a file from byte `from_offset` on (all of them when fewer), each
// ending with '\n'; empty when the file cannot be read.
std::string last_lines_of_file(const std::string& path, std::size_t count,
                               std::uint64_t from_offset = 0);

}  // namespace kg::cli
