// Makes `go build` and program output fit for the caller: compiler messages become structured
// diagnostics with the sandbox's paths stripped, and long streams keep their head and tail.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::go_program {

// Lines of the form `[./|/app/]file.go:LINE:COL: message` (and `file.go:LINE: message`).
std::vector<plugin::Diagnostic> parse_diagnostics(std::string_view compiler_output);

// Removes the sandbox's own directories from compiler output, so paths read as the caller's.
std::string strip_sandbox_paths(std::string_view text);

inline constexpr std::size_t kStreamKeep = 8 * 1024;  // head and tail of each stream in a result

// Keeps the first and last `keep` bytes, replacing the middle with
// "\n... [N bytes elided] ...\n" (docs/contracts.md §3). Shorter text is returned as it is.
std::string elide_middle(std::string_view text, std::size_t keep);

}  // namespace kg::go_program
