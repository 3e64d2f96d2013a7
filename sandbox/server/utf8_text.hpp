// Makes arbitrary bytes (command output, file names) safe to put in a JSON string, which must be
// UTF-8. Used by write_text() in http_exchange; pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace kg::sandbox {

// `bytes` with every byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF included) replaced by U+FFFD.
std::string to_valid_utf8(std::string_view bytes);

}  // namespace kg::sandbox
