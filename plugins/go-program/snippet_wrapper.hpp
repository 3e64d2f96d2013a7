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
// The warning of a build that failed in kg_wrapper.go: a `func run` the normalizer's check let
// through (run_signature.hpp: a type name it could not judge) that the compiler refused.
inline constexpr const char* kWrapperDiagnosticAdvice =
    "the error in kg_wrapper.go (the main kode-gopher generates around a snippet) is about "
    "your func run: it must have exactly the signature `func run(ctx context.Context) (any, "
    "error)` (a named type is not any; only an alias such as `type Result = any` is)";

std::string snippet_wrapper_source();
// Throws plugin::InvalidInputError for an import path that is not a plain Go import path.
std::string extra_imports_source(const std::vector<std::string>& import_paths);

}  // namespace kg::go_program
