// The answer of GET /v1/stats (docs/daemon-api.md, "Stats"): session and call counts, and the
// timing percentiles per runtime. Written by the daemon's API (daemon/api/response_json.cpp)
// from the store's numbers, read by `kode-gopher stats`. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kg::wire::daemon_api {

struct TimingRow {
  std::string runtime;
  std::string metric;  // queue_ms | setup_ms | build_ms | run_ms | total_ms
  std::int64_t count = 0;
  std::uint64_t p50 = 0, p95 = 0;  // milliseconds, nearest-rank percentiles
  bool operator==(const TimingRow&) const = default;
};

struct Stats {
  std::int64_t open_sessions = 0;   // "sessions": {"open"
  std::int64_t total_sessions = 0;  //              "total"}
  std::int64_t total_calls = 0;     // "calls": {"total"
  // "calls": {"by_status"}: each status and its count, in the order written (the daemon's is
  // by status name), so a reader shows them as the daemon sent them.
  std::vector<std::pair<std::string, std::int64_t>> calls_by_status;
  std::vector<TimingRow> timings;
  bool operator==(const Stats&) const = default;
};

std::string encode_stats(const Stats& stats);

// Reads an answer parsed within json::kDaemonAnswerLimits; absent members keep the defaults.
// Throws MalformedMessage naming a member out of shape ("timings[1].p95" that is not a whole
// number).
Stats decode_stats(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
