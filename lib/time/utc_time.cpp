#include "utc_time.hpp"

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>

#include <cstdio>
#include <ctime>
#include <regex>

namespace kg::utc {
namespace {

struct Parts {
  std::tm tm{};
  int millis = 0;
};

Parts split(TimePoint time) {
  // Floor (not truncate toward zero) so times before 1970 keep a valid millisecond field.
  const auto since_epoch = std::chrono::floor<std::chrono::milliseconds>(time.time_since_epoch());
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  Parts parts;
  parts.millis = static_cast<int>((since_epoch - seconds).count());
  const std::time_t whole = static_cast<std::time_t>(seconds.count());
  gmtime_r(&whole, &parts.tm);
  return parts;
}

}  // namespace

std::string to_rfc3339(TimePoint time) {
  const Parts p = split(time);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", p.tm.tm_year + 1900,
                p.tm.tm_mon + 1, p.tm.tm_mday, p.tm.tm_hour, p.tm.tm_min, p.tm.tm_sec);
  return text;
}

std::string to_rfc3339_millis(TimePoint time) {
  const Parts p = split(time);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", p.tm.tm_year + 1900,
                p.tm.tm_mon + 1, p.tm.tm_mday, p.tm.tm_hour, p.tm.tm_min, p.tm.tm_sec, p.millis);
  return text;
}

std::optional<MicrosecondTime> parse_rfc3339(std::string_view text) {
  static const std::regex kRfc3339(
      R"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))");
  const std::string copy(text);
  Poco::DateTime parsed;
  int zone = 0;
  if (!std::regex_match(copy, kRfc3339) ||
      !Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, copy, parsed,
                                      zone)) {
    return std::nullopt;
  }
  const auto utc_us = parsed.timestamp().epochMicroseconds() -
                      static_cast<Poco::Int64>(zone) * 1'000'000;
  return MicrosecondTime(std::chrono::microseconds(utc_us));
}

}  // namespace kg::utc
