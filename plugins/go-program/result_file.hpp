// Checks the result.json a run left (docs/contracts.md §3): at most 256 KiB, one JSON object whose
// "kind" is ok, error, panic or marshal_error, nested at most 128 levels. Anything else becomes a
// warning, never a silent drop. Strings that are not UTF-8 are repaired (U+FFFD) with a warning,
// so the user's data survives. Pure; called from call threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kg::go_program {

inline constexpr std::uint64_t kMaxResultBytes = 256 * 1024;
inline constexpr const char* kResultPath = ".kode-gopher/result.json";  // relative to /app

struct CheckedResult {
  std::optional<std::string> json;  // the object as compact JSON of valid UTF-8, when valid
  std::string kind;                 // its kind, when valid
};

CheckedResult check_result_file(const std::optional<std::string>& text,
                                std::vector<std::string>& warnings);

}  // namespace kg::go_program
