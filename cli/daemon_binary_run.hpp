// Runs the daemon binary for an answer that only it knows and that needs no running daemon:
// `--check-config` (the keys of the plugins it would load) and `--describe-runtimes` (the runtime
// names they offer). The CLI relays or reads what it prints. Any thread.
#pragma once

#include <string>
#include <vector>

namespace kg::cli {

struct DaemonBinaryOutput {
  int exit_code = 0;
  std::string output;  // its standard output (and standard error, when merged)
};

// Runs `binary arguments...` to its end. With merge_stderr its standard error joins `output`;
// without, it goes to this process's standard error. Throws DaemonUnavailableError when it
// cannot be started or does not exit normally.
DaemonBinaryOutput run_daemon_binary(const std::string& binary,
                                     const std::vector<std::string>& arguments, bool merge_stderr);

}  // namespace kg::cli
