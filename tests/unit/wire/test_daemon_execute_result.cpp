// The daemon API's ExecuteResult (docs/daemon-api.md): what the daemon writes comes back equal
// through the CLI's and the MCP tool's reading, strings that are not UTF-8 arrive repaired, and an
// answer out of shape is refused naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/execute_result.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;
using kg::wire::MalformedMessage;

namespace {

ExecuteResult decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_execute_result(read.document);
}

std::string refusal_of(const std::string& text) {
  try {
    (void)decode_text(text);
  } catch (const MalformedMessage& e) {
    return e.what();
  }
  FAIL("accepted: " << text);
  return {};
}

// Every member set, each optional part present.
ExecuteResult everything() {
  ExecuteResult r;
  r.call_id = 42;
  r.session_id = "s-0123";
  r.phase = "run";
  r.mode = "wrapped";
  r.action = "test";
  r.runtime = "compiled-go";
  r.runtime_reason = "auto: the loop estimate says compiled";
  r.status = "test_failed";
  r.exit_code = 1;
  r.signal = 9;
  r.duration_ms = 812;
  r.queue_ms = 1;
  r.setup_ms = 40;
  r.build_ms = 700;
  r.run_ms = 60;
  r.timings_us = {812345, 1000, 40000, 700000, 60000, 765000, 6345};
  r.sandbox_requests = 3;
  r.tidied = true;
  r.cache_hit = true;
  r.is_error = true;
  r.warnings = {"output cut at 4 MiB", "a notice"};
  r.stdout_text = std::string("out\0put\n", 8);
  r.stderr_text = "ünï err\n";
  r.diagnostics = {{"main.go", 3, 2, "undefined: x", ""}, {"lib/a.go", 0, 0, "shadow", "shadow"}};
  r.tests = TestReport{1, 1, 0, {{"p", "TestA", "pass", 3, ""}, {"p", "TestB", "fail", 4, "x\n"}}};
  ApiCalls calls{3, 1, 4096, 1, {}};
  calls.calls.push_back({"storage", "storage.objects.list", "b/b1", true, 200, std::nullopt, 12500,
                         0, 2048, ""});
  calls.calls.push_back({"pubsub", "google.pubsub.v1.Publisher/Publish", "", false, 200, 7, 900,
                         5, 7, "read_only"});
  r.api_calls = calls;
  r.files = {{"report.csv", 22, "text/csv", "kode-gopher://sessions/s-0123/calls/42/files/report.csv"},
             {"one-shot.bin", 3, "application/octet-stream", ""}};
  r.result_json = R"({"kind":"ok","value":{"a":[1,2,{"b":null}]}})";
  return r;
}

}  // namespace

TEST_CASE("an ExecuteResult survives encode and decode unchanged") {
  const ExecuteResult full = everything();
  CHECK(decode_text(encode_execute_result(full)) == full);

  // The least a call has: no optional part at all, action run (never written).
  ExecuteResult least;
  least.status = "ok";
  least.action = "";
  CHECK(decode_text(encode_execute_result(least)) == least);
  const std::string text = encode_execute_result(least);
  for (const char* absent : {"\"action\"", "\"signal\"", "\"warnings\"", "\"stdout\"", "\"tests\"",
                             "\"api_calls\"", "\"files\"", "\"result\"", "\"runtime_reason\""}) {
    CAPTURE(absent);
    CHECK(text.find(absent) == std::string::npos);
  }
}

TEST_CASE("strings that are not UTF-8 are sent repaired, so every answer is valid JSON") {
  ExecuteResult r;
  r.status = "ok";
  r.stdout_text = "a\xff" "b";
  r.files = {{"n\xc3(", 1, "text/plain", ""}};
  const ExecuteResult back = decode_text(encode_execute_result(r));
  CHECK(back.stdout_text == "a\xEF\xBF\xBD" "b");
  CHECK(back.files.at(0).name == "n\xEF\xBF\xBD(");
}

TEST_CASE("a member out of shape is refused, naming it") {
  CHECK(refusal_of("[]") == "the daemon's answer is not a JSON object");
  CHECK(refusal_of(R"({"exit_code": "0"})") ==
        "the daemon's answer has \"exit_code\" that is not an integer");
  CHECK(refusal_of(R"({"warnings": ["a", 1]})") ==
        "the daemon's answer has \"warnings[1]\" that is not a string");
  CHECK(refusal_of(R"({"api_calls": {"calls": [{"method": 5}]}})") ==
        "the daemon's answer has \"api_calls.calls[0].method\" that is not a string");
  CHECK(refusal_of(R"({"result": [1]})") ==
        "the daemon's answer has \"result\" that is not an object");
  // Null is "not given", as everywhere in the daemon API.
  CHECK(decode_text(R"({"status": "ok", "result": null, "stdout": null})") ==
        [] { ExecuteResult r; r.status = "ok"; return r; }());
}
