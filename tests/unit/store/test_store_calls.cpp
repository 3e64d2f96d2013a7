// Calls: begin, finish, find, list; reconciling after a crash.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::new_call;
using test::new_session;
using test::TempDir;

CallOutcome full_outcome() {
  CallOutcome outcome;
  outcome.mode = "wrapped";
  outcome.phase = "run";
  outcome.status = "runtime_error";
  outcome.exit_code = 3;
  outcome.queue_ms = 11;
  outcome.setup_ms = 22;
  outcome.build_ms = 333;
  outcome.run_ms = 44;
  outcome.total_ms = 410;
  outcome.cache_hit = true;
  outcome.tidied = true;
  outcome.output_bytes = 5555;
  outcome.error_message = "";
  return outcome;
}

TEST_CASE("a call is recorded running, then done with every field of its outcome") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  const auto sha = std::string(64, 'f');
  const auto id = store.begin_call(new_call("s-1", "yaegi", sha, 1234));
  CHECK(id == 1);

  const auto running = store.find_call(id);
  REQUIRE(running.has_value());
  CHECK(running->id == id);
  CHECK(running->session_id == "s-1");
  CHECK(running->runtime == "yaegi");
  CHECK(running->state == "running");
  CHECK(running->mode == "");
  CHECK(running->status == "");
  CHECK(running->code_sha256 == sha);
  CHECK(running->input_bytes == 1234);
  CHECK(test::looks_like_rfc3339_millis(running->created_at));
  CHECK(running->finished_at == "");

  store.finish_call(id, full_outcome());
  const auto done = store.find_call(id);
  REQUIRE(done.has_value());
  CHECK(done->id == id);
  CHECK(done->session_id == "s-1");
  CHECK(done->runtime == "yaegi");
  CHECK(done->mode == "wrapped");
  CHECK(done->phase == "run");
  CHECK(done->status == "runtime_error");
  CHECK(done->state == "done");
  CHECK(done->exit_code == 3);
  CHECK(done->queue_ms == 11);
  CHECK(done->setup_ms == 22);
  CHECK(done->build_ms == 333);
  CHECK(done->run_ms == 44);
  CHECK(done->total_ms == 410);
  CHECK(done->cache_hit);
  CHECK(done->tidied);
  CHECK(done->code_sha256 == sha);
  CHECK(done->input_bytes == 1234);
  CHECK(done->output_bytes == 5555);
  CHECK(done->created_at == running->created_at);
  CHECK(test::looks_like_rfc3339_millis(done->finished_at));
  CHECK(done->finished_at >= done->created_at);
  CHECK(done->error_message == "");
}

TEST_CASE("a call that ended in an API error keeps its message, and negative exit codes") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  const auto id = store.begin_call(new_call("s-1"));
  CallOutcome outcome;
  outcome.phase = "setup";
  outcome.status = "internal";
  outcome.exit_code = -1;
  outcome.error_message = "Failed to start sandbox: bwrap: No permissions";
  store.finish_call(id, outcome);
  const auto call = store.find_call(id);
  CHECK(call->exit_code == -1);
  CHECK(call->mode == "");
  CHECK(call->status == "internal");
  CHECK(!call->cache_hit);
  CHECK(call->error_message == "Failed to start sandbox: bwrap: No permissions");
}

TEST_CASE("a call is finished once, and only a known one") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  const auto id = store.begin_call(new_call("s-1"));
  store.finish_call(id, full_outcome());
  CHECK_THROWS_WITH_AS(store.finish_call(id, full_outcome()),
                       "Failed to record the outcome of call 1: the call is already done",
                       StoreError);
  CHECK_THROWS_WITH_AS(store.finish_call(42, full_outcome()),
                       "Failed to record the outcome of call 42: no such call", StoreError);
  CHECK_FALSE(store.find_call(42).has_value());
}

TEST_CASE("a call stopped by the daemon's shutdown is recorded interrupted, with its outcome") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  const auto id = store.begin_call(new_call("s-1"));
  CallOutcome outcome;
  outcome.phase = "setup";
  outcome.status = "interrupted";
  outcome.queue_ms = 7;
  outcome.total_ms = 1200;
  outcome.error_message = "The daemon is shutting down";
  store.interrupt_call(id, outcome);
  const auto call = store.find_call(id);
  CHECK(call->state == "interrupted");
  CHECK(call->status == "interrupted");
  CHECK(call->queue_ms == 7);
  CHECK(call->total_ms == 1200);
  CHECK(call->error_message == "The daemon is shutting down");
  CHECK(test::looks_like_rfc3339_millis(call->finished_at));
  // It ended: neither finishing it nor a later reconcile changes it.
  CHECK_THROWS_WITH_AS(store.finish_call(id, full_outcome()),
                       "Failed to record the outcome of call 1: the call is already interrupted",
                       StoreError);
  CHECK(store.reconcile_after_crash().interrupted_calls == 0);
  // Finished calls count by status; interrupted ones do not.
  CHECK(store.stats().calls_by_status.empty());
}

TEST_CASE("a call needs a recorded session") {
  TempDir dir;
  Store store(dir / "kg.db");
  CHECK_THROWS_WITH_AS(store.begin_call(new_call("s-missing")),
                       "Failed to record call start: FOREIGN KEY constraint failed", StoreError);
}

TEST_CASE("a session's calls are listed in the order they started") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(new_session("s-1"));
  store.insert_session(new_session("s-2"));
  const auto first = store.begin_call(new_call("s-1", "compiled-go"));
  store.begin_call(new_call("s-2"));
  const auto third = store.begin_call(new_call("s-1", "yaegi"));
  const auto calls = store.list_calls("s-1");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].id == first);
  CHECK(calls[0].runtime == "compiled-go");
  CHECK(calls[1].id == third);
  CHECK(calls[1].runtime == "yaegi");
  CHECK(store.list_calls("s-3").empty());
}

TEST_CASE("reconciling after a crash interrupts open sessions and running calls only") {
  TempDir dir;
  const auto db = dir / "kg.db";
  std::int64_t running_call = 0, done_call = 0, closed_session_call = 0;
  {
    Store store(db);
    store.insert_session(new_session("open-with-calls"));
    store.insert_session(new_session("closed"));
    store.insert_session(new_session("open-with-sandbox"));
    store.attach_sandbox("open-with-sandbox", "sandbox-3");
    running_call = store.begin_call(new_call("open-with-calls"));
    done_call = store.begin_call(new_call("open-with-calls"));
    store.finish_call(done_call, full_outcome());
    closed_session_call = store.begin_call(new_call("closed"));
    store.finish_call(closed_session_call, full_outcome());
    store.close_session("closed", "closed", "client closed it");
  }  // the "crash": the daemon goes away with sessions open and a call running

  Store store(db);
  const auto closed_before = store.find_session("closed");
  const auto report = store.reconcile_after_crash();
  REQUIRE(report.interrupted_sessions.size() == 2);
  CHECK(report.interrupted_calls == 1);
  CHECK(report.interrupted_sessions[0].id == "open-with-calls");
  CHECK(report.interrupted_sessions[0].calls == 2);
  CHECK(report.interrupted_sessions[1].id == "open-with-sandbox");
  CHECK(report.interrupted_sessions[1].sandbox_id == "sandbox-3");
  for (const auto& reported : report.interrupted_sessions) {
    CAPTURE(reported.id);
    CHECK(reported.state == "interrupted");
    CHECK(reported.close_reason == "daemon stopped unexpectedly");
    CHECK(test::looks_like_rfc3339_millis(reported.closed_at));
    const auto stored = store.find_session(reported.id);
    CHECK(stored->state == "interrupted");
    CHECK(stored->closed_at == reported.closed_at);
    CHECK(stored->close_reason == "daemon stopped unexpectedly");
  }

  const auto closed_after = store.find_session("closed");
  CHECK(closed_after->state == "closed");
  CHECK(closed_after->closed_at == closed_before->closed_at);
  CHECK(closed_after->close_reason == "client closed it");

  const auto interrupted = store.find_call(running_call);
  CHECK(interrupted->state == "interrupted");
  CHECK(interrupted->error_message == "daemon stopped unexpectedly");
  CHECK(test::looks_like_rfc3339_millis(interrupted->finished_at));
  CHECK(store.find_call(done_call)->state == "done");
  CHECK(store.find_call(done_call)->error_message == "");
  CHECK(store.find_call(closed_session_call)->state == "done");

  const auto second = store.reconcile_after_crash();
  CHECK(second.interrupted_sessions.empty());
  CHECK(second.interrupted_calls == 0);
}

TEST_CASE("a call that asked for auto is recorded as the runtime that ran it, with the reason") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1", "auto"));
  const auto id = store.begin_call(new_call("s-1", "auto"));
  CHECK(store.find_call(id)->runtime == "auto");  // while it runs: what was asked for
  CallOutcome outcome;
  outcome.status = "ok";
  outcome.runtime = "yaegi";
  outcome.runtime_reason = "only the standard library";
  store.finish_call(id, outcome);
  const auto done = store.find_call(id);
  REQUIRE(done.has_value());
  CHECK(done->runtime == "yaegi");
  CHECK(done->runtime_reason == "only the standard library");
  // An outcome without a runtime (an API error) keeps the requested one.
  const auto failed = store.begin_call(new_call("s-1", "auto"));
  CallOutcome error;
  error.status = "internal";
  store.finish_call(failed, error);
  CHECK(store.find_call(failed)->runtime == "auto");
  CHECK(store.find_call(failed)->runtime_reason.empty());
}

}  // namespace
}  // namespace kg::store
