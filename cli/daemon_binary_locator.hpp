// Finds the kode-gopherd executable the CLI starts (auto-start) or becomes (`kode-gopher
// daemon`). Search order: $KODE_GOPHERD; kode-gopherd next to the CLI's own executable (an
// install); <exe_dir>/../daemon/kode-gopherd (the Meson build tree: build/cli/kode-gopher and
// build/daemon/kode-gopherd); kode-gopherd on $PATH. Main thread.
#pragma once

#include <optional>
#include <string>

namespace kg::cli {

// Where to look, gathered from the process (current_daemon_search_places) or given by a test.
struct DaemonSearchPlaces {
  std::optional<std::string> override_path;  // $KODE_GOPHERD; nullopt or empty when unset
  std::string own_executable;                // the CLI's own path; empty when unknown
  std::string path_variable;                 // $PATH
};

// $KODE_GOPHERD, /proc/self/exe and $PATH of this process.
DaemonSearchPlaces current_daemon_search_places();

// The first executable regular file in the search order. Throws DaemonUnavailableError naming
// every place it looked, or naming $KODE_GOPHERD when that is set but not an executable file.
std::string find_daemon_binary(const DaemonSearchPlaces& places);

}  // namespace kg::cli
