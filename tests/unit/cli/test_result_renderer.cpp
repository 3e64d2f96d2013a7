// render_execute_result on ExecuteResult JSON as the daemon sends it, read with the daemon API's
// codec as the CLI and the MCP tool read it: the exact text.
#include <doctest/doctest.h>

#include <string>

#include "daemon_client.hpp"
#include "json_text.hpp"
#include "result_renderer.hpp"

using kg::cli::parse_json;
using kg::cli::render_execute_result;

namespace {

kg::wire::daemon_api::ExecuteResult decoded(const std::string& json) {
  return kg::wire::daemon_api::decode_execute_result(parse_json(json, "test input"));
}

std::string render(const std::string& json) { return render_execute_result(decoded(json)); }

}  // namespace

TEST_CASE("an ok run shows the first line and its stdout only") {
  CHECK(render(R"({"call_id": 7, "session_id": "s-1", "phase": "run", "mode": "verbatim",
      "runtime": "compiled-go", "status": "ok", "exit_code": 0, "duration_ms": 812,
      "queue_ms": 0, "setup_ms": 40, "build_ms": 700, "run_ms": 60, "tidied": false,
      "cache_hit": false, "is_error": false, "stdout": "hello\n", "stderr": "",
      "warnings": [], "diagnostics": []})") ==
        "phase=run mode=verbatim runtime=compiled-go exit=0 (812ms, build 700ms)\n"
        "── stdout ──\n"
        "hello\n");
}

TEST_CASE("with runtime auto the reason follows the first line") {
  CHECK(render(R"({"phase": "run", "mode": "wrapped", "runtime": "yaegi",
      "runtime_reason": "standard library only; no construct known to diverge",
      "status": "ok", "exit_code": 0, "duration_ms": 31, "build_ms": 4, "stdout": "x\n"})") ==
        "phase=run mode=wrapped runtime=yaegi exit=0 (31ms, build 4ms)\n"
        "runtime reason: standard library only; no construct known to diverge\n"
        "── stdout ──\n"
        "x\n");
}

TEST_CASE("a compile error shows status, diagnostics and stderr") {
  CHECK(render(R"({"phase": "build", "mode": "wrapped", "runtime": "compiled-go",
      "status": "compile_error", "exit_code": 1, "duration_ms": 950, "build_ms": 900,
      "tidied": true, "cache_hit": false, "is_error": true,
      "stderr": "# kode_gopher_user\n./main.go:3:2: undefined: x",
      "diagnostics": [
        {"file": "main.go", "line": 3, "col": 2, "message": "undefined: x"},
        {"file": "lib/util.go", "line": 10, "col": 5, "message": "missing return"}]})") ==
        "phase=build mode=wrapped runtime=compiled-go exit=1 (950ms, build 900ms) "
        "status=compile_error tidied\n"
        "── diagnostics ──\n"
        "main.go:3:2: undefined: x\n"
        "lib/util.go:10:5: missing return\n"
        "── stderr ──\n"
        "# kode_gopher_user\n"
        "./main.go:3:2: undefined: x\n");
}

TEST_CASE("a runtime error with a signal shows status, signal and cache hit") {
  CHECK(render(R"({"phase": "run", "mode": "verbatim", "runtime": "compiled-go",
      "status": "killed", "exit_code": 137, "signal": 9, "duration_ms": 30012, "build_ms": 5,
      "tidied": false, "cache_hit": true, "is_error": true, "stdout": "started\n",
      "stderr": "signal: killed\n"})") ==
        "phase=run mode=verbatim runtime=compiled-go exit=137 (30012ms, build 5ms) "
        "status=killed signal=9 cache hit\n"
        "── stdout ──\n"
        "started\n"
        "── stderr ──\n"
        "signal: killed\n");
}

TEST_CASE("the result object is pretty-printed with 2-space indentation") {
  CHECK(render(R"({"phase": "run", "mode": "wrapped", "runtime": "yaegi", "status": "ok",
      "exit_code": 0, "duration_ms": 120, "build_ms": 0, "is_error": false,
      "result": {"kind": "ok", "value": {"buckets": ["a", "b"], "count": 2, "ratio": 0.5}}})") ==
        "phase=run mode=wrapped runtime=yaegi exit=0 (120ms, build 0ms)\n"
        "── result ──\n"
        "{\n"
        "  \"kind\": \"ok\",\n"
        "  \"value\": {\n"
        "    \"buckets\": [\n"
        "      \"a\",\n"
        "      \"b\"\n"
        "    ],\n"
        "    \"count\": 2,\n"
        "    \"ratio\": 0.5\n"
        "  }\n"
        "}\n");
}

TEST_CASE("warnings come right after the first line, one per line") {
  CHECK(render(R"({"phase": "run", "mode": "wrapped", "runtime": "compiled-go",
      "status": "ok", "exit_code": 0, "duration_ms": 300, "build_ms": 200, "is_error": true,
      "warnings": ["result.json is larger than 256 KiB and was dropped",
                   "runtime auto chose compiled-go: generics with two type parameters"],
      "stdout": "no newline at the end"})") ==
        "phase=run mode=wrapped runtime=compiled-go exit=0 (300ms, build 200ms)\n"
        "warning: result.json is larger than 256 KiB and was dropped\n"
        "warning: runtime auto chose compiled-go: generics with two type parameters\n"
        "── stdout ──\n"
        "no newline at the end\n");
}

TEST_CASE("empty streams, empty lists and a null result are left out") {
  CHECK(render(R"({"phase": "run", "mode": "verbatim", "runtime": "compiled-go",
      "status": "ok", "exit_code": 0, "duration_ms": 10, "build_ms": 1, "stdout": "",
      "stderr": "", "warnings": [], "diagnostics": [], "result": null})") ==
        "phase=run mode=verbatim runtime=compiled-go exit=0 (10ms, build 1ms)\n");
}

TEST_CASE("a setup failure without mode and a panic result render every part in order") {
  CHECK(render(R"json({"phase": "run", "runtime": "compiled-go", "status": "panic",
      "exit_code": 2, "duration_ms": 44, "build_ms": 0, "warnings": ["w"],
      "stdout": "out\n", "stderr": "goroutine 1 [running]:\n",
      "diagnostics": [{"file": "main.go", "message": "no position"}],
      "result": {"kind": "panic", "message": "boom", "stack": "main.run()"}})json") ==
        "phase=run mode=? runtime=compiled-go exit=2 (44ms, build 0ms) status=panic\n"
        "warning: w\n"
        "── diagnostics ──\n"
        "main.go: no position\n"
        "── stdout ──\n"
        "out\n"
        "── stderr ──\n"
        "goroutine 1 [running]:\n"
        "── result ──\n"
        "{\n"
        "  \"kind\": \"panic\",\n"
        "  \"message\": \"boom\",\n"
        "  \"stack\": \"main.run()\"\n"
        "}\n");
}

TEST_CASE("parse_json reports the parser's message with line and column") {
  CHECK_THROWS_WITH_AS(parse_json("{\n  \"a\": 1,\n  oops\n}", "The daemon's answer"),
                       "The daemon's answer is not valid JSON: Missing a name for object member. "
                       "(line 3, column 3)",
                       std::runtime_error);
}

TEST_CASE("a daemon answer nested 120 000 levels deep is refused, not a stack overflow") {
  // What a daemon without the result's depth bound would have sent for the hostile result.json.
  const std::string answer = R"({"phase": "run", "status": "ok", "result": {"kind": "ok", "value": )" +
                             std::string(120'000, '[') + std::string(120'000, ']') + "}}";
  CHECK_THROWS_WITH_AS(parse_json(answer, "The daemon's answer"),
                       "The daemon's answer nests deeper than 136 levels (line 1, column 202)",
                       std::runtime_error);
  // An error answer that deep is shown as the start of its text.
  const std::string error = R"({"error": {"code": "x", "message": "y", "z": )" +
                            std::string(120'000, '[') + std::string(120'000, ']') + "}}";
  CHECK(std::string(kg::cli::daemon_error_from_answer(500, error).what()) ==
        "daemon answered HTTP 500: " + error.substr(0, 200));
}

TEST_CASE("a result as deep as the daemon lets through renders, pretty-printed") {
  // The result at its bound (128 levels), inside the call's object: 129 levels in all.
  const std::string value = std::string(127, '[') + std::string(127, ']');
  const std::string answer = R"({"phase": "run", "status": "ok", "result": {"kind": "ok", "value": )" +
                             value + "}}";
  const std::string text = render(answer);
  CHECK(text.find("── result ──\n{\n  \"kind\": \"ok\",\n  \"value\": [\n") != std::string::npos);
  CHECK(kg::cli::compact_json(parse_json(answer, "test input")["result"]) ==
        R"({"kind":"ok","value":)" + value + "}");
}

TEST_CASE("API calls come last: totals, one line each, and how many more") {
  const std::string json = R"({"phase": "run", "mode": "wrapped", "runtime": "compiled-go",
      "status": "ok", "exit_code": 0, "duration_ms": 10, "build_ms": 5,
      "warnings": ["kode-gopher API policy: read-only refuses storage.objects.insert on b/b1/o/x"],
      "api_calls": {"count": 4, "refused": 1, "bytes": 3000, "dropped": 1, "calls": [
        {"service": "storage", "method": "storage.objects.list", "resource": "b/b1", "read": true,
         "http_status": 200, "duration_us": 12500, "request_bytes": 0, "response_bytes": 2048},
        {"service": "storage", "method": "storage.objects.insert", "resource": "b/b1/o/x",
         "read": false, "http_status": 403, "duration_us": 300, "request_bytes": 10,
         "response_bytes": 0, "refused": "read_only"},
        {"service": "pubsub", "method": "google.pubsub.v1.Publisher/GetTopic", "read": true,
         "http_status": 200, "grpc_status": 5, "duration_us": 900, "request_bytes": 5,
         "response_bytes": 7}]}})";
  CHECK(render(json) ==
        "phase=run mode=wrapped runtime=compiled-go exit=0 (10ms, build 5ms)\n"
        "warning: kode-gopher API policy: read-only refuses storage.objects.insert on b/b1/o/x\n"
        "── api calls: 4 (1 refused), 2.9 KiB ──\n"
        "storage.objects.list b/b1 200 12ms 2.0 KiB\n"
        "storage.objects.insert b/b1/o/x 403 0ms 10B refused: read_only\n"
        "google.pubsub.v1.Publisher/GetTopic grpc=5 0ms 12B\n"
        "... 1 more (the daemon records every one it was told of; see docs/api-policy.md)\n");
  // The MCP text keeps it shorter.
  CHECK(render_execute_result(decoded(json), 1).find(
            "storage.objects.list b/b1 200 12ms 2.0 KiB\n"
            "... 3 more") != std::string::npos);
}
