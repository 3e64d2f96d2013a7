// `kode-gopher exec --out DIR`: saves the files a call left under /app/out (its result's `files`,
// docs/daemon-api.md) into DIR, each under its own relative name, fetched from the daemon while
// the call's session is still open. Main thread.
#pragma once

#include <ostream>
#include <string>

#include <vector>

#include "daemon_api/execute_result.hpp"

namespace kg::cli {

// Returns how many files were saved; tells `err` each one. Throws DaemonApiError or
// kg::net::HttpTransportError for a file the daemon would not give, std::runtime_error for a
// file that cannot be written (naming it) or a name that would leave DIR.
std::size_t save_out_files(const std::string& socket_path,
                           const std::vector<wire::daemon_api::OutFile>& files,
                           const std::string& dir, std::ostream& err);

}  // namespace kg::cli
