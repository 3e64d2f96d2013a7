// The api_calls table: every audited API request of a call kept in order with its refusal, the
// proxy's dropped count on the call, the per-session counts `kode-gopher sessions` shows, and
// the migration that adds the table to a database of schema version 7.
#include <doctest/doctest.h>

#include "store.hpp"
#include "store_schema.hpp"
#include "store_test_support.hpp"

namespace kg::store {
namespace {

using test::TempDir;

ApiCallRecord api_call(const std::string& session, std::int64_t call, const std::string& method,
                       const std::string& refused_rule = {}) {
  ApiCallRecord r;
  r.call_id = call;
  r.session_id = session;
  r.host = "storage.googleapis.com";
  r.http_method = refused_rule.empty() ? "GET" : "POST";
  r.service = "storage";
  r.method = method;
  r.resource = "b/b1/o/x";
  r.buckets = "b1";
  r.read = refused_rule.empty();
  r.http_status = refused_rule.empty() ? 200 : 403;
  r.refused_rule = refused_rule;
  r.refusal = refused_rule.empty() ? "" : "kode-gopher API policy: read-only refuses it";
  r.request_bytes = 10;
  r.response_bytes = 2000;
  r.duration_us = 1500;
  return r;
}

TEST_CASE("a call's API requests are kept in order, refusals and gRPC statuses included") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  store.insert_session(test::new_session("s-2"));
  const auto call = store.begin_call(test::new_call("s-1"));
  auto grpc = api_call("s-1", call, "google.storage.v2.Storage/ReadObject");
  grpc.grpc = true;
  grpc.grpc_status = 0;
  store.record_api_calls(call, {api_call("s-1", call, "storage.objects.get"),
                                api_call("s-1", call, "storage.objects.insert", "read_only"), grpc},
                         3);
  const auto records = store.list_api_calls(call);
  REQUIRE(records.size() == 3);
  CHECK(records[0].method == "storage.objects.get");
  CHECK(records[0].grpc_status == -1);
  CHECK(records[0].refused_rule.empty());
  CHECK(records[0].response_bytes == 2000);
  CHECK(records[0].duration_us == 1500);
  CHECK(test::looks_like_rfc3339_millis(records[0].recorded_at));
  CHECK(records[1].refused_rule == "read_only");
  CHECK(records[1].refusal == "kode-gopher API policy: read-only refuses it");
  CHECK(records[1].http_status == 403);
  CHECK(records[2].grpc);
  CHECK(records[2].grpc_status == 0);
  CHECK(store.find_call(call)->api_calls_dropped == 3);
  // A second run of the same call (runtime auto) adds to it.
  store.record_api_calls(call, {api_call("s-1", call, "storage.objects.list")}, 2);
  CHECK(store.list_api_calls(call).size() == 4);
  CHECK(store.find_call(call)->api_calls_dropped == 5);

  const auto s1 = store.find_session("s-1");
  CHECK(s1->api_calls == 4);
  CHECK(s1->api_calls_refused == 1);
  CHECK(store.find_session("s-2")->api_calls == 0);
}

TEST_CASE("a session's API requests are listed across its calls, in order, up to the limit") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  store.insert_session(test::new_session("s-2"));
  const auto first = store.begin_call(test::new_call("s-1"));
  const auto other = store.begin_call(test::new_call("s-2"));
  const auto second = store.begin_call(test::new_call("s-1"));
  store.record_api_calls(first, {api_call("s-1", first, "storage.objects.get"),
                                 api_call("s-1", first, "storage.objects.insert", "read_only")},
                         0);
  store.record_api_calls(other, {api_call("s-2", other, "storage.buckets.list")}, 0);
  store.record_api_calls(second, {api_call("s-1", second, "storage.objects.list")}, 0);
  const auto listed = store.list_session_api_calls("s-1", 10);
  REQUIRE(listed.size() == 3);
  CHECK(listed[0].call_id == first);
  CHECK(listed[0].method == "storage.objects.get");
  CHECK(listed[1].refused_rule == "read_only");
  CHECK(listed[2].call_id == second);
  CHECK(listed[2].method == "storage.objects.list");
  const auto bounded = store.list_session_api_calls("s-1", 2);
  REQUIRE(bounded.size() == 2);
  CHECK(bounded[1].method == "storage.objects.insert");
  CHECK(store.list_session_api_calls("s-2", 10).size() == 1);
  CHECK(store.list_session_api_calls("s-9", 10).empty());
}

TEST_CASE("an API request of an unknown session is refused, and nothing of the batch is kept") {
  TempDir dir;
  Store store(dir / "kg.db");
  store.insert_session(test::new_session("s-1"));
  const auto call = store.begin_call(test::new_call("s-1"));
  CHECK_THROWS_AS(store.record_api_calls(call, {api_call("s-1", call, "a"), api_call("s-9", call, "b")}, 0),
                  StoreError);
  CHECK(store.list_api_calls(call).empty());
  CHECK_THROWS_AS(store.record_api_calls(999, {api_call("s-1", 999, "a")}, 0), StoreError);
}

TEST_CASE("a database of schema 7 gains the audit table, and its calls count nothing dropped") {
  TempDir dir;
  const auto db = dir / "kg.db";
  test::write_database_at_version(db, 7,
                                  "INSERT INTO sessions (id, client, provider, runtime, state, "
                                  "opened_at) VALUES ('old', 'cli', 'local', 'compiled-go', "
                                  "'closed', '2026-01-01T00:00:00.000Z');"
                                  "INSERT INTO calls (session_id, runtime, state, code_sha256, "
                                  "created_at) VALUES ('old', 'compiled-go', 'done', 'x', "
                                  "'2026-01-01T00:00:00.000Z');");
  Store store(db);
  CHECK(store.schema_version() == static_cast<int>(schema_migrations().size()));
  const auto calls = store.list_calls("old");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].api_calls_dropped == 0);
  CHECK(store.find_session("old")->api_calls == 0);
  store.record_api_calls(calls[0].id, {api_call("old", calls[0].id, "storage.objects.get")}, 0);
  CHECK(store.find_session("old")->api_calls == 1);
}

}  // namespace
}  // namespace kg::store
