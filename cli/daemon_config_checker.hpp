// Runs `kode-gopherd --check-config FILE` for `kode-gopher config check`: only the daemon binary
// knows the plugins it would load, and so the keys of their sections (docs/configuration.md,
// "Plugin sections"); the CLI relays its report. Main thread.
#pragma once

#include <ostream>
#include <string>

namespace kg::cli {

// Runs `daemon_binary --check-config file`, copies what it prints (stdout and stderr) to
// `out`, and returns its exit status. Throws DaemonUnavailableError when it cannot be run or
// does not exit normally.
int run_daemon_config_check(const std::string& daemon_binary, const std::string& file,
                            std::ostream& out);

}  // namespace kg::cli
