// The store's timestamps: RFC 3339 in UTC with milliseconds ("2026-12-02T09:00:00.123Z"), which
// sort as text in time order, so SQL can ORDER BY them. Pure functions; any thread.
#pragma once

#include <chrono>
#include <string>

namespace kg::store {

std::string format_rfc3339_utc(std::chrono::system_clock::time_point time);
std::string rfc3339_utc_now();

}  // namespace kg::store
