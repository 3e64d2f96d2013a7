// The Go files kode-gopher generates next to a wrapped snippet (docs/contracts.md §3):
// kg_wrapper.go supplies `main`, calls the snippet's `func run(ctx) (any, error)`, recovers
// panics, JSON-encodes the value and writes /app/.kode-gopher/result.json (unless the program
// wrote one itself); kg_extra_imports.go blank-imports what the caller asked for.
#pragma once

#include <string>
#include <vector>

namespace kg::go_program {

inline constexpr const char* kWrapperFileName = "kg_wrapper.go";
inline constexpr const char* kExtraImportsFileName = "kg_extra_imports.go";

std::string snippet_wrapper_source();
// Throws plugin::InvalidInputError for an import path that is not a plain Go import path.
std::string extra_imports_source(const std::vector<std::string>& import_paths);

}  // namespace kg::go_program
