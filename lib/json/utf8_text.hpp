// Makes arbitrary bytes (command output, file names, strings in a result.json) safe to put in a
// JSON string, which must be UTF-8. The sandbox server repairs what it sends, the compiled-go
// plugin what it reads from result.json, the daemon whatever it answers. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace kg::json {

// Whether `bytes` is well-formed UTF-8 (Unicode table 3-7): no overlong forms, no encoded
// surrogates (ED A0 80..ED BF BF), nothing above U+10FFFF, no sequence cut short.
bool is_valid_utf8(std::string_view bytes) noexcept;

// `bytes` with every byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF included) replaced by U+FFFD.
std::string to_valid_utf8(std::string_view bytes);

// Where to cut valid UTF-8 text so that both sides stay valid: the nearest sequence boundary at
// or before `at` (boundary_before) or at or after it (boundary_after); `at` past the end means
// the end. Text that is not UTF-8 is cut at most 3 bytes from `at`.
std::size_t utf8_boundary_before(std::string_view text, std::size_t at) noexcept;
std::size_t utf8_boundary_after(std::string_view text, std::size_t at) noexcept;

}  // namespace kg::json
