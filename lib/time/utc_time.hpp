// UTC instants as text: RFC 3339 written in one of two fixed shapes and read strictly. The store's
// timestamps, the log's, the Kubernetes claim's shutdownTime, OAuth token expiries and the
// sandbox's metadata emulator all use these (docs/contracts.md §1 spells the expiry). Pure
// functions; any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kg::utc {

using TimePoint = std::chrono::system_clock::time_point;
// What parse_rfc3339 reads into: microseconds, so any year fits (system_clock's nanoseconds end in
// 2262, and an expiry "2999-01-01T00:00:00Z" is a real answer of token plugins).
using MicrosecondTime = std::chrono::sys_time<std::chrono::microseconds>;

// "2026-12-03T09:00:00Z": whole seconds, rounded down.
std::string to_rfc3339(TimePoint time);
// "2026-12-03T09:00:00.123Z": milliseconds, rounded down (also before 1970). These sort as text
// in time order, so SQL can ORDER BY them.
std::string to_rfc3339_millis(TimePoint time);

// RFC 3339: date, 'T', time, an optional fraction, and 'Z' or a numeric offset such as +02:00;
// nullopt for anything else (Poco's parser alone takes almost anything, so the shape is checked
// first).
std::optional<MicrosecondTime> parse_rfc3339(std::string_view text);

}  // namespace kg::utc
