// The answer of POST /v1/execute and /v1/sessions/{id}/execute (docs/daemon-api.md,
// "ExecuteResult"; the fields' meaning is docs/contracts.md §3): written by the daemon's API
// (daemon/api/response_json.cpp) for a finished call, read by the CLI (`kode-gopher exec`) and the
// MCP tool execute_go_code, which render it. Team mode's MCP endpoint takes the value itself, with
// no text in between. One codec for both ends, so a field added on one side is there on the other.
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::wire::daemon_api {

// A compiler or vet finding; line and col are 0 when the tool gave none.
struct Diagnostic {
  std::string file;
  int line = 0;
  int col = 0;
  std::string message;
  std::string analyzer;  // go vet's analyzer; empty for the compiler
  bool operator==(const Diagnostic&) const = default;
};

// Action test: one test or subtest.
struct TestCaseEntry {
  std::string package;
  std::string name;
  std::string outcome;  // pass, fail, skip
  std::uint64_t elapsed_ms = 0;
  std::string output;
  bool operator==(const TestCaseEntry&) const = default;
};

struct TestReport {
  std::uint64_t passed = 0;
  std::uint64_t failed = 0;
  std::uint64_t skipped = 0;
  std::vector<TestCaseEntry> cases;
  bool operator==(const TestReport&) const = default;
};

// One Google API request the egress proxy forwarded or refused (docs/api-policy.md).
struct ApiCall {
  std::string service;
  std::string method;
  std::string resource;  // empty: none known
  bool read = false;
  int http_status = 0;
  std::optional<int> grpc_status;
  std::uint64_t duration_us = 0;
  std::uint64_t request_bytes = 0;
  std::uint64_t response_bytes = 0;
  std::string refused_rule;  // empty: forwarded
  bool operator==(const ApiCall&) const = default;
};

// The bounded list with totals over every request (count >= calls.size()).
struct ApiCalls {
  std::uint64_t count = 0;
  std::uint64_t refused = 0;
  std::uint64_t bytes = 0;
  std::uint64_t dropped = 0;
  std::vector<ApiCall> calls;
  bool operator==(const ApiCalls&) const = default;
};

// A file the program left under /app/out (docs/daemon-api.md, "Files out").
struct OutFile {
  std::string name;
  std::uint64_t size = 0;
  std::string media_type;
  std::string uri;
  bool operator==(const OutFile&) const = default;
};

// Where the call's time went, in microseconds.
struct Timings {
  std::uint64_t total = 0;
  std::uint64_t queue = 0;
  std::uint64_t setup = 0;
  std::uint64_t build = 0;
  std::uint64_t run = 0;
  std::uint64_t sandbox = 0;
  std::uint64_t daemon = 0;
  bool operator==(const Timings&) const = default;
};

struct ExecuteResult {
  std::int64_t call_id = 0;
  std::string session_id;
  std::string phase;
  std::string mode;
  std::string action;  // empty: run (the field is sent only for test and vet)
  std::string runtime;
  std::string runtime_reason;
  std::string status;
  int exit_code = 0;
  int signal = 0;  // 0: none
  std::uint64_t duration_ms = 0;
  std::uint64_t queue_ms = 0;
  std::uint64_t setup_ms = 0;
  std::uint64_t build_ms = 0;
  std::uint64_t run_ms = 0;
  Timings timings_us;
  std::uint32_t sandbox_requests = 0;
  bool tidied = false;
  bool cache_hit = false;
  bool is_error = false;
  std::vector<std::string> warnings;  // warnings, then notices
  std::string stdout_text;
  std::string stderr_text;
  std::vector<Diagnostic> diagnostics;
  std::optional<TestReport> tests;
  std::optional<ApiCalls> api_calls;
  std::vector<OutFile> files;
  // The program's result object as JSON text (checked by the daemon; docs/contracts.md §3).
  std::optional<std::string> result_json;
  bool operator==(const ExecuteResult&) const = default;
};

// The JSON text. Strings that are not UTF-8 are sent with U+FFFD in their place, so every answer
// is valid JSON whatever a sandbox printed; result_json is copied as it is (the daemon checked it).
std::string encode_execute_result(const ExecuteResult& result);

// Reads an answer parsed within json::kDaemonAnswerLimits. Members a daemon leaves out keep the
// defaults above; a member of the wrong type throws MalformedMessage naming it.
ExecuteResult decode_execute_result(const rapidjson::Value& value);

// The files listing of GET /v1/sessions/{id}/files, {"files": [OutFile]}, written by the daemon
// and read by the MCP server's resources/list; each entry as in the result's "files".
// decode_out_files reads the "files" of either (none when the value is not an object).
std::string encode_files_listing(const std::vector<OutFile>& files);
std::vector<OutFile> decode_out_files(const rapidjson::Value& object);

}  // namespace kg::wire::daemon_api
