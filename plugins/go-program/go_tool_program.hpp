// The tree `go test` and `go vet` work on (actions test and vet, docs/runtimes.md): the caller's
// files as they are, with no wrapper around a snippet (its tests call run themselves) and any
// package name at the root, so a library package with _test.go files is tested as it is. The
// same path rules as a run (program_normalizer), cgo refused the same way. Throws
// plugin::InvalidInputError saying what to change. Pure; called from call threads.
#pragma once

#include <string>
#include <vector>

#include "program_normalizer.hpp"

namespace kg::go_program {

NormalizedProgram normalize_for_go_tool(const std::vector<plugin::SourceFile>& files,
                                        const std::vector<std::string>& extra_imports,
                                        plugin::Action action);

}  // namespace kg::go_program
