// Reads what `go vet -json` prints (stdout and stderr together): per package a "# pkg" line and one JSON object
// {"<package>": {"<analyzer>": [{"posn": "file:line:col", "message": ...}]}}, into diagnostics
// shaped like the compiler's, each naming its analyzer. A package that does not compile makes
// vet print the compiler's message ("vet: ./x.go:3:2: undefined: y") instead: those come back
// as compiler diagnostics, with no analyzer. Pure; called from call threads.
#pragma once

#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::go_program {

struct GoVetReport {
  std::vector<plugin::Diagnostic> findings;  // from the analyzers
  std::vector<plugin::Diagnostic> compile_errors;
};

GoVetReport read_go_vet_output(std::string_view stderr_text);

}  // namespace kg::go_program
