// Store: the numbers behind `kode-gopher stats` and GET /v1/stats.
#include <algorithm>
#include <array>

#include "sqlite_statement.hpp"
#include "store.hpp"

namespace kg::store {
namespace {

constexpr std::array<const char*, 5> kMetrics = {"queue_ms", "setup_ms", "build_ms", "run_ms",
                                                 "total_ms"};

// Nearest-rank percentile: the smallest value with at least `percent`% of the values at or
// below it, i.e. sorted[ceil(percent/100 * n) - 1]. `values` must not be empty; reorders it.
std::uint64_t nearest_rank(std::vector<std::uint64_t>& values, std::uint64_t percent) {
  const std::uint64_t n = values.size();
  const std::uint64_t rank = std::max<std::uint64_t>(1, (percent * n + 99) / 100);
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

std::int64_t count(sqlite3* db, const char* sql, const std::string& operation) {
  SqliteStatement query(db, sql, operation);
  return query.step() ? query.integer(0) : 0;
}

void add_runtime_timings(const std::string& runtime,
                         std::array<std::vector<std::uint64_t>, kMetrics.size()>& values,
                         std::vector<TimingStat>& timings) {
  for (std::size_t metric = 0; metric < kMetrics.size(); ++metric) {
    auto& metric_values = values[metric];
    if (metric_values.empty()) continue;
    TimingStat stat;
    stat.runtime = runtime;
    stat.metric = kMetrics[metric];
    stat.count = static_cast<std::int64_t>(metric_values.size());
    stat.p50 = nearest_rank(metric_values, 50);
    stat.p95 = nearest_rank(metric_values, 95);
    timings.push_back(std::move(stat));
    metric_values.clear();
  }
}

}  // namespace

Stats Store::stats() {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to compute stats";
  Stats stats;
  stats.open_sessions = count(db_, "SELECT COUNT(*) FROM sessions WHERE state = 'open'", operation);
  stats.total_sessions = count(db_, "SELECT COUNT(*) FROM sessions", operation);
  stats.total_calls = count(db_, "SELECT COUNT(*) FROM calls", operation);
  {
    SqliteStatement query(
        db_, "SELECT status, COUNT(*) FROM calls WHERE state = 'done' GROUP BY status", operation);
    while (query.step()) stats.calls_by_status[query.text(0)] = query.integer(1);
  }
  // All finished calls' timings, grouped by runtime by the ORDER BY (index calls_by_state_runtime).
  SqliteStatement query(db_,
                        "SELECT runtime, queue_ms, setup_ms, build_ms, run_ms, total_ms "
                        "FROM calls WHERE state = 'done' ORDER BY runtime",
                        operation);
  std::string runtime;
  std::array<std::vector<std::uint64_t>, kMetrics.size()> values;
  while (query.step()) {
    auto row_runtime = query.text(0);
    if (row_runtime != runtime) {
      add_runtime_timings(runtime, values, stats.timings);
      runtime = std::move(row_runtime);
    }
    for (std::size_t metric = 0; metric < kMetrics.size(); ++metric) {
      const auto value = query.integer(static_cast<int>(metric) + 1);
      values[metric].push_back(value < 0 ? 0 : static_cast<std::uint64_t>(value));
    }
  }
  add_runtime_timings(runtime, values, stats.timings);
  return stats;
}

CallMetrics Store::call_metrics() {
  std::lock_guard lock(mutex_);
  const std::string operation = "Failed to read the call metrics";
  CallMetrics metrics;
  {
    SqliteStatement query(db_,
                          "SELECT runtime, IFNULL(status, ''), IFNULL(phase, ''), COUNT(*) "
                          "FROM calls WHERE state = 'done' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                          operation);
    while (query.step()) {
      metrics.finished.push_back({query.text(0), query.text(1), query.text(2),
                                  static_cast<std::uint64_t>(query.integer(3))});
    }
  }
  {
    // One row per runtime: each bucket's count as SUM(total_ms <= bound).
    std::string sql = "SELECT runtime, COUNT(*), SUM(MAX(total_ms, 0))";
    for (const std::uint64_t bound : kDurationBucketsMs) {
      sql += ", SUM(total_ms <= " + std::to_string(bound) + ")";
    }
    sql += " FROM calls WHERE state = 'done' GROUP BY runtime ORDER BY runtime";
    SqliteStatement query(db_, sql.c_str(), operation);
    while (query.step()) {
      CallDurations durations;
      durations.runtime = query.text(0);
      durations.count = static_cast<std::uint64_t>(query.integer(1));
      durations.sum_ms = static_cast<std::uint64_t>(query.integer(2));
      for (std::size_t i = 0; i < kDurationBucketsMs.size(); ++i) {
        durations.cumulative.push_back(static_cast<std::uint64_t>(query.integer(static_cast<int>(i) + 3)));
      }
      metrics.durations.push_back(std::move(durations));
    }
  }
  metrics.running_calls = static_cast<std::uint64_t>(
      count(db_, "SELECT COUNT(*) FROM calls WHERE state = 'running'", operation));
  metrics.interrupted_calls = static_cast<std::uint64_t>(
      count(db_, "SELECT COUNT(*) FROM calls WHERE state = 'interrupted'", operation));
  metrics.open_sessions = static_cast<std::uint64_t>(
      count(db_, "SELECT COUNT(*) FROM sessions WHERE state = 'open'", operation));
  metrics.users_with_open_sessions = static_cast<std::uint64_t>(count(
      db_, "SELECT COUNT(DISTINCT owner) FROM sessions WHERE state = 'open' AND owner != ''",
      operation));
  {
    SqliteStatement query(
        db_, "SELECT reason, SUM(count) FROM egress_refusals GROUP BY reason ORDER BY reason",
        operation);
    while (query.step()) {
      metrics.egress_refusals.emplace_back(query.text(0),
                                           static_cast<std::uint64_t>(query.integer(1)));
    }
  }
  {
    // A program chooses the service names it asks for, so the labels are bounded: the first
    // kMaxApiServiceLabels services ever seen keep theirs (a set that never changes once full,
    // so every series only grows), the rest count under kOtherService.
    const std::string sql =
        "WITH kept AS (SELECT service FROM api_calls GROUP BY service ORDER BY MIN(id) LIMIT " +
        std::to_string(kMaxApiServiceLabels) +
        ") SELECT CASE WHEN service IN (SELECT service FROM kept) THEN service ELSE '" + std::string(kOtherService) +
        "' END AS label, IFNULL(refused_rule, ''), COUNT(*) FROM api_calls GROUP BY 1, 2 "
        "ORDER BY 1, 2";
    SqliteStatement query(db_, sql.c_str(), operation);
    while (query.step()) {
      metrics.api_calls.push_back(
          {query.text(0), query.text(1), static_cast<std::uint64_t>(query.integer(2))});
    }
  }
  return metrics;
}

}  // namespace kg::store
