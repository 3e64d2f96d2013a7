// The audit read after the fact (docs/api-policy.md, "The audit"): GET
// /v1/sessions/{id}/api_calls and `kode-gopher api-calls` list what the daemon's SQLite records
// of a session's API requests, after the session closed and the daemon restarted. The requests
// are written into the api_calls table here (as Store::record_api_calls would): producing them
// through the egress proxy needs the namespace world of tests/hostile, whose
// test_hostile_egress_policy.cpp reads a real call's back the same way.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;
using kg::test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void exec_sql(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  INFO(sql << ": " << (error ? error : ""));
  sqlite3_free(error);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("kode-gopher api-calls reads a session's audited API requests after the fact") {
  DaemonFixture daemon;
  daemon.start();
  const std::string session = daemon.open_session();
  const auto result = daemon.execute(session, "package main\nfunc main() { println(\"hi\") }\n");
  REQUIRE(json_string(result, "status") == "ok");
  const std::int64_t call = result["call_id"].GetInt64();
  std::string out, err;

  // No request yet: the counts say so, and the list is empty.
  REQUIRE(run_cli({"--config", daemon.config_path(), "api-calls", session}, out, err) == 0);
  CHECK(out == "session " + session + ": 0 API requests\n");
  REQUIRE(daemon.del("/v1/sessions/" + session).status == 200);
  daemon.stop_gracefully();

  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((daemon.state_dir() + "/kode-gopher.db").c_str(), &db) == SQLITE_OK);
    const std::string ids = std::to_string(call) + ", '" + session + "', ";
    exec_sql(db,
             "INSERT INTO api_calls (call_id, session_id, host, http_method, grpc, service, method, "
             "resource, project, billing_project, buckets, read, http_status, grpc_status, "
             "refused_rule, refusal, request_bytes, response_bytes, duration_us, recorded_at) VALUES "
             "(" + ids + "'storage.googleapis.com', 'GET', 0, 'storage', 'storage.objects.list', "
             "'b/logs/o', '', '', 'logs', 1, 200, NULL, NULL, NULL, 120, 4096, 2500, "
             "'2026-01-02T03:04:05.000Z'), "
             "(" + ids + "'pubsub.googleapis.com', 'POST', 1, 'pubsub', "
             "'google.pubsub.v1.Publisher/Publish', 'projects/p-1/topics/t', 'p-1', '', '', 0, 200, "
             "7, 'read_only', 'kode-gopher API policy: read-only refuses Publish', 80, 0, 900, "
             "'2026-01-02T03:04:06.000Z')");
    exec_sql(db, "UPDATE calls SET api_calls_dropped = 3 WHERE id = " + std::to_string(call));
    sqlite3_close(db);
  }
  daemon.start();

  REQUIRE(run_cli({"--config", daemon.config_path(), "api-calls", "--json", session}, out, err) == 0);
  INFO("stdout: " << out << "\nstderr: " << err);
  kg::json::ReadJson read = kg::test::read_test_json(out);
  const rapidjson::Document& audit = read.document;
  CHECK(json_string(audit, "session_id") == session);
  CHECK(audit["count"].GetUint64() == 2);
  CHECK(audit["refused"].GetUint64() == 1);
  CHECK(audit["dropped"].GetUint64() == 3);
  REQUIRE(audit["api_calls"].Size() == 2);
  const auto& listed = audit["api_calls"][0];
  CHECK(listed["call_id"].GetInt64() == call);
  CHECK(json_string(listed, "method") == "storage.objects.list");
  REQUIRE(listed["buckets"].Size() == 1);
  CHECK(std::string(listed["buckets"][0].GetString()) == "logs");
  CHECK_FALSE(listed.HasMember("grpc_status"));
  CHECK_FALSE(listed.HasMember("refused"));
  const auto& refused = audit["api_calls"][1];
  CHECK(refused["grpc"].GetBool());
  CHECK(refused["grpc_status"].GetInt() == 7);
  CHECK(json_string(refused, "refused") == "read_only");
  CHECK(json_string(refused, "project") == "p-1");

  REQUIRE(run_cli({"--config", daemon.config_path(), "api-calls", session}, out, err) == 0);
  CHECK(out.starts_with("session " + session + ": 2 API requests (1 refused); 3 more past the "
                        "egress proxy's bound per call were counted, not recorded\n"));
  CHECK(contains(out, "storage.objects.list"));
  CHECK(contains(out, "grpc=7"));
  CHECK(contains(out, "refused in call " + std::to_string(call) +
                          ": kode-gopher API policy: read-only refuses Publish\n"));

  // A session the daemon never had: 404 not_found, which the CLI exits 64 for.
  const auto unknown = daemon.get("/v1/sessions/no-such-session/api_calls");
  CHECK(unknown.status == 404);
  CHECK(contains(unknown.body, R"("code":"not_found")"));
  CHECK(run_cli({"--config", daemon.config_path(), "api-calls", "no-such-session"}, out, err) == 64);
  CHECK(contains(err, "no-such-session"));
  CHECK(daemon.post("/v1/sessions/" + session + "/api_calls", "{}").status == 405);
  daemon.stop_gracefully();
}
