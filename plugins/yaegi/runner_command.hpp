// The command line that starts the Yaegi runner for a call. The runner is a prestarted command
// (docs/sandbox-api.md, "Prestarted commands"): the sandbox starts the last such command line
// again after each call, so the line says which binary waits for the next call. A program that
// imports anything beyond the standard library (a curated package) gets
// kode-gopher-yaegi-cloud, installed next to the runner, directly: its start and the curated
// packages' initialization (~30 ms of CPU, ~85 MB) are then paid ahead of the next such call,
// with the collector off while it starts (the call's own GOGC applies once the call is in,
// sandbox/yaegi-runner/call_on_stdin.go). Any other program gets the plain runner (~8 ms,
// ~18 MB), so sessions that never import a curated package never pay for the cloud one
// (docs/runtimes.md, "Two runner binaries"). Without the cloud binary the line falls back to
// the plain runner, which says what is missing when the call needs it.
#pragma once

#include <string>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::yaegi {

// True when a Go file (not a _test.go) imports a path whose first element has a dot, which no
// standard library package has (the program's own folders are kode_gopher_user/...).
bool imports_beyond_standard_library(const std::vector<plugin::SourceFile>& files);

// "exec <runner> --call-on-stdin", or, for a program importing beyond the standard library,
// the cloud runner beside it when it is there (else that line).
std::string runner_command(const std::string& runner_path,
                           const std::vector<plugin::SourceFile>& files);

}  // namespace kg::yaegi
