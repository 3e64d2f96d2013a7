// The reading half of execute_result.hpp: the CLI and the MCP tool read the daemon's answer with
// it. A member of the wrong type throws MalformedMessage naming it by path.
#include "execute_result.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"

namespace kg::wire::daemon_api {
namespace {

// Every member of an ExecuteResult is read as "the daemon's answer".
const MemberReader& answer() {
  static const MemberReader reader("the daemon's answer");
  return reader;
}

Diagnostic read_diagnostic(const rapidjson::Value& v, const std::string& where) {
  answer().object_at(v, where);
  const std::string at = where + ".";
  Diagnostic d;
  answer().read(v, "file", at, d.file);
  answer().read(v, "line", at, d.line);
  answer().read(v, "col", at, d.col);
  answer().read(v, "message", at, d.message);
  answer().read(v, "analyzer", at, d.analyzer);
  return d;
}

TestReport read_tests(const rapidjson::Value& v) {
  answer().object_at(v, "tests");
  TestReport tests;
  answer().read(v, "passed", "tests.", tests.passed);
  answer().read(v, "failed", "tests.", tests.failed);
  answer().read(v, "skipped", "tests.", tests.skipped);
  answer().read_array(v, "cases", "tests.", [&](const rapidjson::Value& item, const std::string& where) {
    answer().object_at(item, where);
    const std::string at = where + ".";
    TestCaseEntry t;
    answer().read(item, "package", at, t.package);
    answer().read(item, "name", at, t.name);
    answer().read(item, "outcome", at, t.outcome);
    answer().read(item, "elapsed_ms", at, t.elapsed_ms);
    answer().read(item, "output", at, t.output);
    tests.cases.push_back(std::move(t));
  });
  return tests;
}

ApiCalls read_api_calls(const rapidjson::Value& v) {
  answer().object_at(v, "api_calls");
  ApiCalls a;
  answer().read(v, "count", "api_calls.", a.count);
  answer().read(v, "refused", "api_calls.", a.refused);
  answer().read(v, "bytes", "api_calls.", a.bytes);
  answer().read(v, "dropped", "api_calls.", a.dropped);
  answer().read_array(v, "calls", "api_calls.", [&](const rapidjson::Value& item, const std::string& where) {
    answer().object_at(item, where);
    const std::string at = where + ".";
    ApiCall call;
    answer().read(item, "service", at, call.service);
    answer().read(item, "method", at, call.method);
    answer().read(item, "resource", at, call.resource);
    answer().read(item, "read", at, call.read);
    answer().read(item, "http_status", at, call.http_status);
    if (given(item, "grpc_status") != nullptr) {
      int status = 0;
      answer().read(item, "grpc_status", at, status);
      call.grpc_status = status;
    }
    answer().read(item, "duration_us", at, call.duration_us);
    answer().read(item, "request_bytes", at, call.request_bytes);
    answer().read(item, "response_bytes", at, call.response_bytes);
    answer().read(item, "refused", at, call.refused_rule);
    a.calls.push_back(std::move(call));
  });
  return a;
}

Timings read_timings(const rapidjson::Value& v) {
  answer().object_at(v, "timings_us");
  Timings t;
  const std::string at = "timings_us.";
  answer().read(v, "total", at, t.total);
  answer().read(v, "queue", at, t.queue);
  answer().read(v, "setup", at, t.setup);
  answer().read(v, "build", at, t.build);
  answer().read(v, "run", at, t.run);
  answer().read(v, "sandbox", at, t.sandbox);
  answer().read(v, "daemon", at, t.daemon);
  return t;
}

std::string compact_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

std::vector<OutFile> decode_out_files(const rapidjson::Value& object) {
  std::vector<OutFile> files;
  if (!object.IsObject()) return files;
  answer().read_array(object, "files", "", [&](const rapidjson::Value& item, const std::string& where) {
    answer().object_at(item, where);
    const std::string at = where + ".";
    OutFile file;
    answer().read(item, "name", at, file.name);
    answer().read(item, "size", at, file.size);
    answer().read(item, "media_type", at, file.media_type);
    answer().read(item, "uri", at, file.uri);
    files.push_back(std::move(file));
  });
  return files;
}

ExecuteResult decode_execute_result(const rapidjson::Value& v) {
  if (!v.IsObject()) throw MalformedMessage("the daemon's answer is not a JSON object");
  ExecuteResult r;
  const std::string top;
  answer().read(v, "call_id", top, r.call_id);
  answer().read(v, "session_id", top, r.session_id);
  answer().read(v, "phase", top, r.phase);
  answer().read(v, "mode", top, r.mode);
  answer().read(v, "action", top, r.action);
  answer().read(v, "runtime", top, r.runtime);
  answer().read(v, "runtime_reason", top, r.runtime_reason);
  answer().read(v, "status", top, r.status);
  answer().read(v, "exit_code", top, r.exit_code);
  answer().read(v, "signal", top, r.signal);
  answer().read(v, "duration_ms", top, r.duration_ms);
  answer().read(v, "queue_ms", top, r.queue_ms);
  answer().read(v, "setup_ms", top, r.setup_ms);
  answer().read(v, "build_ms", top, r.build_ms);
  answer().read(v, "run_ms", top, r.run_ms);
  if (const rapidjson::Value* timings = given(v, "timings_us")) r.timings_us = read_timings(*timings);
  answer().read(v, "sandbox_requests", top, r.sandbox_requests);
  answer().read(v, "tidied", top, r.tidied);
  answer().read(v, "cache_hit", top, r.cache_hit);
  answer().read(v, "is_error", top, r.is_error);
  answer().read_array(v, "warnings", top, [&](const rapidjson::Value& item, const std::string& where) {
    if (!item.IsString()) answer().wrong(where, "a string");
    r.warnings.push_back(string_of(item));
  });
  answer().read(v, "stdout", top, r.stdout_text);
  answer().read(v, "stderr", top, r.stderr_text);
  answer().read_array(v, "diagnostics", top, [&](const rapidjson::Value& item, const std::string& where) {
    r.diagnostics.push_back(read_diagnostic(item, where));
  });
  if (const rapidjson::Value* tests = given(v, "tests")) r.tests = read_tests(*tests);
  if (const rapidjson::Value* api_calls = given(v, "api_calls")) {
    r.api_calls = read_api_calls(*api_calls);
  }
  r.files = decode_out_files(v);
  if (const rapidjson::Value* result = given(v, "result")) {
    if (!result->IsObject()) answer().wrong("result", "an object");
    r.result_json = compact_text(*result);
  }
  return r;
}

}  // namespace kg::wire::daemon_api
