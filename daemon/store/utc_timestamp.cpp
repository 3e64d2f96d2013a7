#include "utc_timestamp.hpp"

#include <cstdio>
#include <ctime>

namespace kg::store {

std::string format_rfc3339_utc(std::chrono::system_clock::time_point time) {
  // Floor (not truncate toward zero) so times before 1970 keep a valid millisecond field.
  const auto since_epoch =
      std::chrono::floor<std::chrono::milliseconds>(time.time_since_epoch());
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const auto millis = (since_epoch - seconds).count();
  const std::time_t whole = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buffer;
}

std::string rfc3339_utc_now() { return format_rfc3339_utc(std::chrono::system_clock::now()); }

}  // namespace kg::store
