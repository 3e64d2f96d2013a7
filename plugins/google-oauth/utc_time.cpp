#include "utc_time.hpp"

#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>
#include <Poco/Exception.h>

#include <ctime>

namespace kg::google_oauth {

std::string to_rfc3339(SystemTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::optional<SystemTime> parse_rfc3339(std::string_view text) {
  try {
    int zone = 0;
    const Poco::DateTime parsed =
        Poco::DateTimeParser::parse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, std::string(text), zone);
    const auto utc = parsed.timestamp().epochMicroseconds() - static_cast<Poco::Int64>(zone) * 1'000'000;
    return SystemTime(std::chrono::duration_cast<SystemTime::duration>(std::chrono::microseconds(utc)));
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

}  // namespace kg::google_oauth
