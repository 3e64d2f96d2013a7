// UTC instants as the OAuth answers and docs/contracts.md §1 spell them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kg::google_oauth {

using SystemTime = std::chrono::system_clock::time_point;

// "2026-12-03T09:00:00Z" (whole seconds).
std::string to_rfc3339(SystemTime time);
// RFC 3339 with or without fractional seconds ("…T15:01:23.045123456Z"); nullopt when it is not.
std::optional<SystemTime> parse_rfc3339(std::string_view text);

}  // namespace kg::google_oauth
