// The daemon API's Stats (GET /v1/stats, docs/daemon-api.md): what the daemon writes comes back
// equal through `kode-gopher stats`'s reading, the statuses in the order written, and an answer
// out of shape is refused naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/stats.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

Stats decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_stats(read.document);
}

}  // namespace

TEST_CASE("a Stats survives encode and decode unchanged, in the contract's bytes") {
  Stats stats;
  stats.open_sessions = 1;
  stats.total_sessions = 12;
  stats.total_calls = 40;
  stats.calls_by_status = {{"compile_error", 5}, {"ok", 35}};
  stats.timings = {{"compiled-go", "build_ms", 40, 700, 1900},
                   {"yaegi", "total_ms", 3, 12, 18446744073709551615ull}};
  CHECK(encode_stats(stats) ==
        R"({"sessions":{"open":1,"total":12},)"
        R"("calls":{"total":40,"by_status":{"compile_error":5,"ok":35}},)"
        R"("timings":[{"runtime":"compiled-go","metric":"build_ms","count":40,"p50":700,"p95":1900},)"
        R"({"runtime":"yaegi","metric":"total_ms","count":3,"p50":12,"p95":18446744073709551615}]})");
  CHECK(decode_text(encode_stats(stats)) == stats);

  const Stats fresh;
  CHECK(encode_stats(fresh) ==
        R"({"sessions":{"open":0,"total":0},"calls":{"total":0,"by_status":{}},"timings":[]})");
  CHECK(decode_text(encode_stats(fresh)) == fresh);
}

TEST_CASE("the statuses are read in the order they were written") {
  const Stats read = decode_text(R"({"calls": {"by_status": {"ok": 35, "compile_error": 5}}})");
  CHECK(read.calls_by_status ==
        std::vector<std::pair<std::string, std::int64_t>>{{"ok", 35}, {"compile_error", 5}});
}

TEST_CASE("a Stats out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_text("[]"), "the daemon's stats is not a JSON object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"sessions": [1, 12]})"),
                       "the daemon's stats has \"sessions\" that is not an object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"calls": {"total": "40"}})"),
                       "the daemon's stats has \"calls.total\" that is not an integer",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"calls": {"by_status": {"ok": "35"}}})"),
                       "the daemon's stats has \"calls.by_status.ok\" that is not an integer",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"timings": [{"p95": 1900.5}]})"),
                       "the daemon's stats has \"timings[0].p95\" that is not a whole number",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"timings": [{"p50": -1}]})"),
                       "the daemon's stats has \"timings[0].p50\" that is not a whole number",
                       kg::wire::MalformedMessage);
}
