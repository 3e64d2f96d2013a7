// Issue 25's API policy and audit, end to end: a real daemon with creds-adc (sealed, the
// default) against loopback Google endpoints, its sandbox on the allowlist, fake-gcs-server
// named storage.googleapis.com behind the egress proxy's TLS. A call asks for read-only access
// (`kode-gopher exec --read-only`); its program lists the buckets (a read: forwarded) and uploads
// an object (a write: refused by the proxy before it leaves, with the rule, in the program). The
// result's warnings name the rule, its `api_calls` list exactly those two requests, and the
// session's counts in the daemon's records agree, and `kode-gopher api-calls` reads the same two
// requests back after the session closed (docs/api-policy.md).
#include <doctest/doctest.h>

#include <fstream>

#include "adc_daemon_options.hpp"
#include "egress_world.hpp"
#include "../support/test_json.hpp"

namespace kg::test::egress {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Lists the buckets, then tries to write an object; returns what each step saw.
const char* kReadThenWrite = R"(package snippet

import (
	"context"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

func run(ctx context.Context) (any, error) {
	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	var buckets []string
	it := client.Buckets(ctx, "test-project")
	for {
		bucket, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, err
		}
		buckets = append(buckets, bucket.Name)
	}
	writer := client.Bucket("kg-bucket").Object("written.txt").NewWriter(ctx)
	writer.ChunkSize = 0 // one request
	writer.Write([]byte("not allowed"))
	writeErr := "none"
	if err := writer.Close(); err != nil {
		writeErr = err.Error()
	}
	return map[string]any{"buckets": buckets, "write_error": writeErr}, nil
}
)";

}  // namespace

TEST_CASE("hostile egress policy: read-only refuses a write in the program, and api_calls list exactly what happened") {
  LoopbackGoogle google;
  DaemonFixture probe;  // a folder for the ADC file
  DaemonFixture daemon(adc_daemon_options(google, probe.dir()));  // sealed, the default
  daemon.start();

  const std::string file = daemon.dir() + "/read_then_write.go";
  std::ofstream(file) << kReadThenWrite;
  std::string out, err;
  const int code = run_cli({"--config", daemon.config_path(), "exec", "--json", "--read-only", file},
                           out, err);
  INFO("exit " << code << "\nstdout:\n" << out << "\nstderr:\n" << err);
  kg::json::ReadJson read = kg::test::read_test_json(out);
  rapidjson::Document& result = read.document;
  REQUIRE(json_string(result, "status") == "ok");
  const auto& value = result["result"]["value"];
  REQUIRE(value["buckets"].IsArray());
  REQUIRE(value["buckets"].Size() == 1);
  CHECK(std::string(value["buckets"][0].GetString()) == kBucket);
  // The program saw the proxy's 403 with the rule.
  const std::string write_error = value["write_error"].GetString();
  CHECK(contains(write_error, "403"));
  CHECK(contains(write_error, "kode-gopher API policy: read-only refuses"));

  bool warned = false;
  REQUIRE(result.HasMember("warnings"));
  for (const auto& warning : result["warnings"].GetArray()) {
    warned = warned || contains(warning.GetString(), "read-only refuses");
  }
  CHECK(warned);

  REQUIRE(result.HasMember("api_calls"));
  const auto& api_calls = result["api_calls"];
  CHECK(api_calls["count"].GetUint64() == 2);
  CHECK(api_calls["refused"].GetUint64() == 1);
  REQUIRE(api_calls["calls"].Size() == 2);
  std::string methods;
  for (const auto& call : api_calls["calls"].GetArray()) {
    methods += std::string(call["method"].GetString()) + (call.HasMember("refused") ? "(refused) " : " ");
    CHECK(std::string(call["service"].GetString()) == "storage");
  }
  INFO(methods);
  CHECK(contains(methods, "storage.buckets.list "));
  CHECK(contains(methods, "storage.objects.insert(refused)"));
  // Nothing was written: the upload never left the proxy.
  CHECK(google.issued().size() == 1);

  // The daemon's records agree: the session counts both, one refused.
  std::string sessions_out;
  REQUIRE(run_cli({"--config", daemon.config_path(), "sessions", "--all", "--json"}, sessions_out, err) == 0);
  kg::json::ReadJson sessions = kg::test::read_test_json(sessions_out);
  bool counted = false;
  for (const auto& session : sessions.document["sessions"].GetArray()) {
    if (session.HasMember("api_calls") && session["api_calls"].GetInt64() == 2 &&
        session["api_calls_refused"].GetInt64() == 1) {
      counted = true;
    }
  }
  CHECK(counted);

  // After the fact, the one-shot session closed: `kode-gopher api-calls` reads the same two
  // requests back from the daemon's records (GET /v1/sessions/{id}/api_calls).
  const std::string session_id = json_string(result, "session_id");
  const std::int64_t call_id = result["call_id"].GetInt64();
  std::string audit_out;
  REQUIRE(run_cli({"--config", daemon.config_path(), "api-calls", "--json", session_id}, audit_out,
                  err) == 0);
  INFO(audit_out);
  kg::json::ReadJson audit_read = kg::test::read_test_json(audit_out);
  const rapidjson::Document& audit = audit_read.document;
  CHECK(json_string(audit, "session_id") == session_id);
  CHECK(audit["count"].GetUint64() == 2);
  CHECK(audit["refused"].GetUint64() == 1);
  CHECK(audit["dropped"].GetUint64() == 0);
  REQUIRE(audit["api_calls"].Size() == 2);
  std::string audited;
  for (const auto& call : audit["api_calls"].GetArray()) {
    CHECK(call["call_id"].GetInt64() == call_id);
    CHECK(json_string(call, "host") == "storage.googleapis.com");
    audited += json_string(call, "http_method") + " " + json_string(call, "method") + " " +
               json_string(call, "refused") + "|";
  }
  CHECK(audited == "GET storage.buckets.list |POST storage.objects.insert read_only|");
  CHECK(contains(json_string(audit["api_calls"][1], "refusal"),
                 "kode-gopher API policy: read-only refuses"));
  std::string audit_text;
  REQUIRE(run_cli({"--config", daemon.config_path(), "api-calls", session_id}, audit_text, err) == 0);
  CHECK(audit_text.starts_with("session " + session_id + ": 2 API requests (1 refused)\n"));
  CHECK(contains(audit_text, "storage.objects.insert"));
  CHECK(contains(audit_text, "refused in call " + std::to_string(call_id) +
                                 ": kode-gopher API policy: read-only refuses"));
  // A session the daemon never had: 404 not_found, exit 64.
  CHECK(daemon.get("/v1/sessions/no-such-session/api_calls").status == 404);
  CHECK(run_cli({"--config", daemon.config_path(), "api-calls", "no-such-session"}, audit_text,
                err) == 64);

  // And /metrics counts them by service and verdict (docs/metrics.md), naming no bucket.
  const auto metrics = daemon.get("/metrics");
  INFO(metrics.body);
  CHECK(contains(metrics.body, "\nkode_gopher_api_calls_total{service=\"storage\",verdict=\"forwarded\","
                               "rule=\"\"} 1\n"));
  CHECK(contains(metrics.body, "\nkode_gopher_api_calls_total{service=\"storage\",verdict=\"refused\","
                               "rule=\"read_only\"} 1\n"));
  CHECK_FALSE(contains(metrics.body, kBucket));
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
