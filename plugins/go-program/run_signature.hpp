// A snippet's `func run` checked against the contract (docs/contracts.md §3) before anything is
// built: a wrong signature otherwise fails in the generated main (kg_wrapper.go, a file the
// caller never wrote) under compiled-go, and differently under yaegi. The check reads only
// tokens (go_source_scanner.hpp), so it refuses only what is surely wrong: a result or
// parameter whose type cannot be what the contract names (a slice, map, pointer, struct,
// predeclared type, a missing or extra one). A bare or qualified type name might be an alias
// (`type Result = any`) and is left to the compiler.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kg::go_program {

// Why `func run` with these signature tokens (TopLevelFunc::signature_tokens) cannot be
// `func run(ctx context.Context) (any, error)`; nullopt when it is, or may be.
std::optional<std::string> run_signature_problem(const std::vector<std::string>& tokens);

}  // namespace kg::go_program
