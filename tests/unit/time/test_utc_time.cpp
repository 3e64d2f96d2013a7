// lib/time: the two shapes UTC instants are written in, and the strict RFC 3339 reader.
#include <doctest/doctest.h>

#include <chrono>

#include "utc_time.hpp"

using namespace std::chrono;
using kg::utc::parse_rfc3339;
using kg::utc::to_rfc3339;
using kg::utc::to_rfc3339_millis;

TEST_CASE("written: whole seconds or milliseconds, UTC, rounded down, also before 1970") {
  const auto noon = sys_days{year{2026} / December / 3} + hours{11};
  CHECK(to_rfc3339(noon) == "2026-12-03T11:00:00Z");
  CHECK(to_rfc3339(noon + milliseconds(1999)) == "2026-12-03T11:00:01Z");
  CHECK(to_rfc3339_millis(sys_days{year{2026} / December / 2} + hours{9} + milliseconds{123}) ==
        "2026-12-02T09:00:00.123Z");
  CHECK(to_rfc3339_millis(sys_days{year{1969} / December / 31} + hours{23} + minutes{59} +
                          seconds{59} + milliseconds{999}) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("read: RFC 3339 with a fraction or an offset; anything else is nullopt") {
  const auto noon = sys_days{year{2026} / December / 3} + hours{11};
  CHECK(parse_rfc3339("2026-12-03T11:00:00Z") == noon);
  CHECK(parse_rfc3339("2026-12-03t11:00:00z") == noon);
  CHECK(parse_rfc3339("2026-12-03T13:00:00+02:00") == noon);
  CHECK(parse_rfc3339("2026-12-03T11:00:00.250Z") == noon + milliseconds(250));
  CHECK(parse_rfc3339(to_rfc3339_millis(noon + milliseconds(7))) == noon + milliseconds(7));
  // Past system_clock's 2262: token plugins answer such expiries.
  CHECK(parse_rfc3339("2999-01-01T00:00:00Z") == sys_days{year{2999} / January / 1});
  for (const char* bad : {"", "2026-12-03", "2026-12-03 11:00:00Z", "2026-12-03T11:00:00",
                          "tomorrow", "2026-12-03T11:00:00Z trailing", "2026-13-03T11:00:00Z"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_rfc3339(bad));
  }
}
