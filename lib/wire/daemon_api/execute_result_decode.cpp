// The reading half of execute_result.hpp: the CLI and the MCP tool read the daemon's answer with
// it. A member of the wrong type throws MalformedMessage naming it by path.
#include "execute_result.hpp"

#include <type_traits>

#include "json_fields.hpp"
#include "malformed_message.hpp"

namespace kg::wire::daemon_api {
namespace {

// Reading: `where` names the member for the message ("api_calls.calls[2].method").

[[noreturn]] void wrong(const std::string& where, const char* shape) {
  throw MalformedMessage("the daemon's answer has \"" + where + "\" that is not " + shape);
}

const rapidjson::Value& object_at(const rapidjson::Value& value, const std::string& where) {
  if (!value.IsObject()) wrong(where, "an object");
  return value;
}

// The JSON shape a member of each type must have, as the refusal names it.
template <class T>
constexpr const char* kShape = "a whole number";
template <>
constexpr const char* kShape<std::string> = "a string";
template <>
constexpr const char* kShape<bool> = "true or false";
template <>
constexpr const char* kShape<int> = "an integer";
template <>
constexpr const char* kShape<std::int64_t> = "an integer";

// The member `name` into `out` when given; `out` keeps its default when absent or null.
template <class T>
void read(const rapidjson::Value& o, const char* name, const std::string& where, T& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v->IsString()) wrong(where + name, kShape<T>);
    out = string_of(*v);
  } else {
    if (!v->template Is<T>()) wrong(where + name, kShape<T>);
    out = v->template Get<T>();
  }
}

// Calls `each(item, "name[i].")` for every item of the array member `name`, if present.
template <class Each>
void read_array(const rapidjson::Value& o, const char* name, const std::string& where,
                Each each) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsArray()) wrong(where + name, "an array");
  rapidjson::SizeType i = 0;
  for (const auto& item : v->GetArray()) {
    each(item, where + name + "[" + std::to_string(i++) + "]");
  }
}

Diagnostic read_diagnostic(const rapidjson::Value& v, const std::string& where) {
  object_at(v, where);
  const std::string at = where + ".";
  Diagnostic d;
  read(v, "file", at, d.file);
  read(v, "line", at, d.line);
  read(v, "col", at, d.col);
  read(v, "message", at, d.message);
  read(v, "analyzer", at, d.analyzer);
  return d;
}

TestReport read_tests(const rapidjson::Value& v) {
  object_at(v, "tests");
  TestReport tests;
  read(v, "passed", "tests.", tests.passed);
  read(v, "failed", "tests.", tests.failed);
  read(v, "skipped", "tests.", tests.skipped);
  read_array(v, "cases", "tests.", [&](const rapidjson::Value& item, const std::string& where) {
    object_at(item, where);
    const std::string at = where + ".";
    TestCaseEntry t;
    read(item, "package", at, t.package);
    read(item, "name", at, t.name);
    read(item, "outcome", at, t.outcome);
    read(item, "elapsed_ms", at, t.elapsed_ms);
    read(item, "output", at, t.output);
    tests.cases.push_back(std::move(t));
  });
  return tests;
}

ApiCalls read_api_calls(const rapidjson::Value& v) {
  object_at(v, "api_calls");
  ApiCalls a;
  read(v, "count", "api_calls.", a.count);
  read(v, "refused", "api_calls.", a.refused);
  read(v, "bytes", "api_calls.", a.bytes);
  read(v, "dropped", "api_calls.", a.dropped);
  read_array(v, "calls", "api_calls.", [&](const rapidjson::Value& item, const std::string& where) {
    object_at(item, where);
    const std::string at = where + ".";
    ApiCall call;
    read(item, "service", at, call.service);
    read(item, "method", at, call.method);
    read(item, "resource", at, call.resource);
    read(item, "read", at, call.read);
    read(item, "http_status", at, call.http_status);
    if (given(item, "grpc_status") != nullptr) {
      int status = 0;
      read(item, "grpc_status", at, status);
      call.grpc_status = status;
    }
    read(item, "duration_us", at, call.duration_us);
    read(item, "request_bytes", at, call.request_bytes);
    read(item, "response_bytes", at, call.response_bytes);
    read(item, "refused", at, call.refused_rule);
    a.calls.push_back(std::move(call));
  });
  return a;
}

Timings read_timings(const rapidjson::Value& v) {
  object_at(v, "timings_us");
  Timings t;
  const std::string at = "timings_us.";
  read(v, "total", at, t.total);
  read(v, "queue", at, t.queue);
  read(v, "setup", at, t.setup);
  read(v, "build", at, t.build);
  read(v, "run", at, t.run);
  read(v, "sandbox", at, t.sandbox);
  read(v, "daemon", at, t.daemon);
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
  read_array(object, "files", "", [&](const rapidjson::Value& item, const std::string& where) {
    object_at(item, where);
    const std::string at = where + ".";
    OutFile file;
    read(item, "name", at, file.name);
    read(item, "size", at, file.size);
    read(item, "media_type", at, file.media_type);
    read(item, "uri", at, file.uri);
    files.push_back(std::move(file));
  });
  return files;
}

ExecuteResult decode_execute_result(const rapidjson::Value& v) {
  if (!v.IsObject()) throw MalformedMessage("the daemon's answer is not a JSON object");
  ExecuteResult r;
  const std::string top;
  read(v, "call_id", top, r.call_id);
  read(v, "session_id", top, r.session_id);
  read(v, "phase", top, r.phase);
  read(v, "mode", top, r.mode);
  read(v, "action", top, r.action);
  read(v, "runtime", top, r.runtime);
  read(v, "runtime_reason", top, r.runtime_reason);
  read(v, "status", top, r.status);
  read(v, "exit_code", top, r.exit_code);
  read(v, "signal", top, r.signal);
  read(v, "duration_ms", top, r.duration_ms);
  read(v, "queue_ms", top, r.queue_ms);
  read(v, "setup_ms", top, r.setup_ms);
  read(v, "build_ms", top, r.build_ms);
  read(v, "run_ms", top, r.run_ms);
  if (const rapidjson::Value* timings = given(v, "timings_us")) r.timings_us = read_timings(*timings);
  read(v, "sandbox_requests", top, r.sandbox_requests);
  read(v, "tidied", top, r.tidied);
  read(v, "cache_hit", top, r.cache_hit);
  read(v, "is_error", top, r.is_error);
  read_array(v, "warnings", top, [&](const rapidjson::Value& item, const std::string& where) {
    if (!item.IsString()) wrong(where, "a string");
    r.warnings.push_back(string_of(item));
  });
  read(v, "stdout", top, r.stdout_text);
  read(v, "stderr", top, r.stderr_text);
  read_array(v, "diagnostics", top, [&](const rapidjson::Value& item, const std::string& where) {
    r.diagnostics.push_back(read_diagnostic(item, where));
  });
  if (const rapidjson::Value* tests = given(v, "tests")) r.tests = read_tests(*tests);
  if (const rapidjson::Value* api_calls = given(v, "api_calls")) {
    r.api_calls = read_api_calls(*api_calls);
  }
  r.files = decode_out_files(v);
  if (const rapidjson::Value* result = given(v, "result")) {
    if (!result->IsObject()) wrong("result", "an object");
    r.result_json = compact_text(*result);
  }
  return r;
}

}  // namespace kg::wire::daemon_api
