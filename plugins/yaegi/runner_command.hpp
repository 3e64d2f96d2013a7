// The command line that starts the Yaegi runner for a call. The runner is a prestarted command
// (docs/sandbox-api.md, "Prestarted commands"): the sandbox starts the last such command line
// again after each call, so the line says which binary waits for the next call. A program that
// imports anything beyond the standard library (a curated package) asks for `--curated`: the
// waiting runner then is kode-gopher-yaegi-cloud, with the curated tables and their packages'
// initialization (~35 ms of CPU, ~85 MB) paid ahead of the call; any other program gets the
// plain runner (~8 ms, ~18 MB), so sessions that never import a curated package never pay
// for the cloud one (docs/runtimes.md, "Two runner binaries").
#pragma once

#include <string>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::yaegi {

// True when a Go file (not a _test.go) imports a path whose first element has a dot, which no
// standard library package has (the program's own folders are kode_gopher_user/...).
bool imports_beyond_standard_library(const std::vector<plugin::SourceFile>& files);

// "exec <runner> --call-on-stdin[ --curated]".
std::string runner_command(const std::string& runner_path,
                           const std::vector<plugin::SourceFile>& files);

}  // namespace kg::yaegi
