// Stats: counts, finished calls by status, nearest-rank p50/p95 per runtime and metric.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::new_call;
using test::new_session;
using test::TempDir;

void add_done_call(Store& store, const std::string& session, const std::string& runtime,
                   std::uint64_t value, const std::string& status = "ok") {
  const auto id = store.begin_call(new_call(session, runtime));
  CallOutcome outcome;
  outcome.status = status;
  outcome.queue_ms = value;
  outcome.setup_ms = 2 * value;
  outcome.build_ms = 3 * value;
  outcome.run_ms = 4 * value;
  outcome.total_ms = 10 * value;
  store.finish_call(id, outcome);
}

TEST_CASE("an empty database has empty stats") {
  TempDir dir;
  Store store(dir / "kg.db");
  const auto stats = store.stats();
  CHECK(stats.open_sessions == 0);
  CHECK(stats.total_sessions == 0);
  CHECK(stats.total_calls == 0);
  CHECK(stats.calls_by_status.empty());
  CHECK(stats.timings.empty());
}

TEST_CASE("stats count sessions and calls and take nearest-rank percentiles of finished calls") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  store.insert_session(new_session("s-2"));
  store.insert_session(new_session("s-3"));
  store.close_session("s-3", "closed", "");

  // compiled-go: values 1..100 in a scrambled order (37 is coprime with 100).
  for (std::uint64_t i = 0; i < 100; ++i) {
    const std::uint64_t value = (i * 37) % 100 + 1;
    add_done_call(store, "s-1", "compiled-go", value, value <= 10 ? "compile_error" : "ok");
  }
  // yaegi: 30, 10, 20 finished; a running and an interrupted call that must not count.
  add_done_call(store, "s-2", "yaegi", 30);
  add_done_call(store, "s-2", "yaegi", 10, "panic");
  add_done_call(store, "s-2", "yaegi", 20);
  store.begin_call(new_call("s-3", "yaegi"));
  store.begin_call(new_call("s-2", "yaegi"));
  store.reconcile_after_crash();  // interrupts s-1, s-2 and the two running calls
  store.insert_session(new_session("s-4"));
  store.begin_call(new_call("s-4", "yaegi"));  // running: counted in total_calls only
  // One finished call: both percentiles are its value.
  add_done_call(store, "s-4", "auto", 7);

  const auto stats = store.stats();
  CHECK(stats.open_sessions == 1);
  CHECK(stats.total_sessions == 4);
  CHECK(stats.total_calls == 100 + 3 + 2 + 1 + 1);
  CHECK(stats.calls_by_status ==
        std::map<std::string, std::int64_t>{{"compile_error", 10}, {"ok", 93}, {"panic", 1}});

  struct Expected {
    const char* runtime;
    const char* metric;
    std::int64_t count;
    std::uint64_t p50, p95;
  };
  const std::vector<Expected> expected = {
      {"auto", "queue_ms", 1, 7, 7},          {"auto", "setup_ms", 1, 14, 14},
      {"auto", "build_ms", 1, 21, 21},        {"auto", "run_ms", 1, 28, 28},
      {"auto", "total_ms", 1, 70, 70},        {"compiled-go", "queue_ms", 100, 50, 95},
      {"compiled-go", "setup_ms", 100, 100, 190}, {"compiled-go", "build_ms", 100, 150, 285},
      {"compiled-go", "run_ms", 100, 200, 380},   {"compiled-go", "total_ms", 100, 500, 950},
      {"yaegi", "queue_ms", 3, 20, 30},       {"yaegi", "setup_ms", 3, 40, 60},
      {"yaegi", "build_ms", 3, 60, 90},       {"yaegi", "run_ms", 3, 80, 120},
      {"yaegi", "total_ms", 3, 200, 300},
  };
  REQUIRE(stats.timings.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(stats.timings[i].runtime == expected[i].runtime);
    CHECK(stats.timings[i].metric == expected[i].metric);
    CHECK(stats.timings[i].count == expected[i].count);
    CHECK(stats.timings[i].p50 == expected[i].p50);
    CHECK(stats.timings[i].p95 == expected[i].p95);
  }
}

TEST_CASE("call metrics count finished calls by runtime, status and phase, with cumulative buckets") {
  TempDir dir;
  Store store(dir / "kg.db");
  REQUIRE(store.call_metrics().finished.empty());
  auto alice = new_session("s-a");
  alice.owner = "issuer#alice";
  store.insert_session(alice);
  auto bob = new_session("s-b");
  bob.owner = "issuer#bob";
  store.insert_session(bob);
  auto bob_again = new_session("s-b2");
  bob_again.owner = "issuer#bob";
  store.insert_session(bob_again);
  store.insert_session(new_session("s-local"));  // no owner: not a team user

  // total_ms = 10 * value: 70 ms, 70 ms, 2 s (compiled-go, one a compile error), 400 s (yaegi).
  add_done_call(store, "s-a", "compiled-go", 7);
  add_done_call(store, "s-a", "compiled-go", 7);
  add_done_call(store, "s-b", "compiled-go", 200, "compile_error");
  add_done_call(store, "s-b", "yaegi", 40'000);
  store.begin_call(new_call("s-b2", "yaegi"));  // running

  const CallMetrics metrics = store.call_metrics();
  REQUIRE(metrics.finished.size() == 3);
  CHECK(metrics.finished[0].runtime == "compiled-go");
  CHECK(metrics.finished[0].status == "compile_error");
  CHECK(metrics.finished[0].count == 1);
  CHECK(metrics.finished[1].status == "ok");
  CHECK(metrics.finished[1].count == 2);
  CHECK(metrics.finished[2].runtime == "yaegi");
  REQUIRE(metrics.durations.size() == 2);
  const CallDurations& compiled = metrics.durations[0];
  CHECK(compiled.count == 3);
  CHECK(compiled.sum_ms == 70 + 70 + 2000);
  REQUIRE(compiled.cumulative.size() == kDurationBucketsMs.size());
  for (std::size_t i = 0; i < kDurationBucketsMs.size(); ++i) {
    CAPTURE(kDurationBucketsMs[i]);
    const std::uint64_t bound = kDurationBucketsMs[i];
    CHECK(compiled.cumulative[i] == (bound >= 70 ? 2u : 0u) + (bound >= 2000 ? 1u : 0u));
  }
  // 400 s is above every bound: only the +Inf bucket (the count) holds it.
  CHECK(metrics.durations[1].cumulative.back() == 0);
  CHECK(metrics.durations[1].count == 1);
  CHECK(metrics.running_calls == 1);
  CHECK(metrics.open_sessions == 4);
  CHECK(metrics.users_with_open_sessions == 2);
  store.reconcile_after_crash();
  CHECK(store.call_metrics().interrupted_calls == 1);
  CHECK(store.call_metrics().running_calls == 0);
}

}  // namespace
}  // namespace kg::store
