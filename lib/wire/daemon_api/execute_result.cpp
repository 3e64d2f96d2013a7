#include "execute_result.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

// Every string of an answer is valid UTF-8, whatever a sandbox put in it (output, file names, a
// session's close reason): bytes that are not become U+FFFD.
void write_text(JsonWriter& w, std::string_view text) {
  if (json::is_valid_utf8(text)) {
    write_bytes(w, text);
  } else {
    write_bytes(w, json::to_valid_utf8(text));
  }
}

void write_member(JsonWriter& w, const char* name, std::string_view text) {
  w.Key(name);
  write_text(w, text);
}

void write_diagnostic(JsonWriter& w, const Diagnostic& d) {
  w.StartObject();
  write_member(w, "file", d.file);
  w.Key("line"); w.Int(d.line);
  w.Key("col"); w.Int(d.col);
  write_member(w, "message", d.message);
  if (!d.analyzer.empty()) write_member(w, "analyzer", d.analyzer);
  w.EndObject();
}

void write_tests(JsonWriter& w, const TestReport& tests) {
  w.Key("tests");
  w.StartObject();
  w.Key("passed"); w.Uint64(tests.passed);
  w.Key("failed"); w.Uint64(tests.failed);
  w.Key("skipped"); w.Uint64(tests.skipped);
  w.Key("cases");
  w.StartArray();
  for (const auto& t : tests.cases) {
    w.StartObject();
    write_member(w, "package", t.package);
    write_member(w, "name", t.name);
    write_member(w, "outcome", t.outcome);
    w.Key("elapsed_ms"); w.Uint64(t.elapsed_ms);
    if (!t.output.empty()) write_member(w, "output", t.output);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// An audited request's strings came from a program's request: written as JSON strings, never
// trusted as anything else.
void write_api_call(JsonWriter& w, const ApiCall& r) {
  w.StartObject();
  write_member(w, "service", r.service);
  write_member(w, "method", r.method);
  if (!r.resource.empty()) write_member(w, "resource", r.resource);
  w.Key("read"); w.Bool(r.read);
  w.Key("http_status"); w.Int(r.http_status);
  if (r.grpc_status) { w.Key("grpc_status"); w.Int(*r.grpc_status); }
  w.Key("duration_us"); w.Uint64(r.duration_us);
  w.Key("request_bytes"); w.Uint64(r.request_bytes);
  w.Key("response_bytes"); w.Uint64(r.response_bytes);
  if (!r.refused_rule.empty()) write_member(w, "refused", r.refused_rule);
  w.EndObject();
}

void write_api_calls(JsonWriter& w, const ApiCalls& a) {
  w.Key("api_calls");
  w.StartObject();
  w.Key("count"); w.Uint64(a.count);
  w.Key("refused"); w.Uint64(a.refused);
  w.Key("bytes"); w.Uint64(a.bytes);
  w.Key("dropped"); w.Uint64(a.dropped);
  w.Key("calls");
  w.StartArray();
  for (const auto& call : a.calls) write_api_call(w, call);
  w.EndArray();
  w.EndObject();
}

void write_timings(JsonWriter& w, const Timings& t) {
  w.Key("timings_us");
  w.StartObject();
  w.Key("total"); w.Uint64(t.total);
  w.Key("queue"); w.Uint64(t.queue);
  w.Key("setup"); w.Uint64(t.setup);
  w.Key("build"); w.Uint64(t.build);
  w.Key("run"); w.Uint64(t.run);
  w.Key("sandbox"); w.Uint64(t.sandbox);
  w.Key("daemon"); w.Uint64(t.daemon);
  w.EndObject();
}

// Reading: `where` names the member for the message ("api_calls.calls[2].method").

[[noreturn]] void wrong(const std::string& where, const char* shape) {
  throw MalformedMessage("the daemon's answer has \"" + where + "\" that is not " + shape);
}

const rapidjson::Value& object_at(const rapidjson::Value& value, const std::string& where) {
  if (!value.IsObject()) wrong(where, "an object");
  return value;
}

void read(const rapidjson::Value& o, const char* name, const std::string& where, std::string& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsString()) wrong(where + name, "a string");
  out = string_of(*v);
}

void read(const rapidjson::Value& o, const char* name, const std::string& where, bool& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsBool()) wrong(where + name, "true or false");
  out = v->GetBool();
}

void read(const rapidjson::Value& o, const char* name, const std::string& where, int& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsInt()) wrong(where + name, "an integer");
  out = v->GetInt();
}

void read(const rapidjson::Value& o, const char* name, const std::string& where,
          std::int64_t& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsInt64()) wrong(where + name, "an integer");
  out = v->GetInt64();
}

void read(const rapidjson::Value& o, const char* name, const std::string& where,
          std::uint64_t& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsUint64()) wrong(where + name, "a whole number");
  out = v->GetUint64();
}

void read(const rapidjson::Value& o, const char* name, const std::string& where,
          std::uint32_t& out) {
  const rapidjson::Value* v = given(o, name);
  if (v == nullptr) return;
  if (!v->IsUint()) wrong(where + name, "a whole number");
  out = v->GetUint();
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

void encode_out_file(JsonWriter& w, const OutFile& file) {
  w.StartObject();
  write_member(w, "name", file.name);
  w.Key("size"); w.Uint64(file.size);
  write_member(w, "media_type", file.media_type);
  if (!file.uri.empty()) write_member(w, "uri", file.uri);
  w.EndObject();
}

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

std::string encode_execute_result(const ExecuteResult& r) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("call_id"); w.Int64(r.call_id);
  write_member(w, "session_id", r.session_id);
  write_member(w, "phase", r.phase);
  write_member(w, "mode", r.mode);
  if (!r.action.empty() && r.action != "run") write_member(w, "action", r.action);
  write_member(w, "runtime", r.runtime);
  if (!r.runtime_reason.empty()) write_member(w, "runtime_reason", r.runtime_reason);
  write_member(w, "status", r.status);
  w.Key("exit_code"); w.Int(r.exit_code);
  if (r.signal != 0) { w.Key("signal"); w.Int(r.signal); }
  w.Key("duration_ms"); w.Uint64(r.duration_ms);
  w.Key("queue_ms"); w.Uint64(r.queue_ms);
  w.Key("setup_ms"); w.Uint64(r.setup_ms);
  w.Key("build_ms"); w.Uint64(r.build_ms);
  w.Key("run_ms"); w.Uint64(r.run_ms);
  write_timings(w, r.timings_us);
  w.Key("sandbox_requests"); w.Uint(r.sandbox_requests);
  w.Key("tidied"); w.Bool(r.tidied);
  w.Key("cache_hit"); w.Bool(r.cache_hit);
  w.Key("is_error"); w.Bool(r.is_error);
  if (!r.warnings.empty()) {
    w.Key("warnings");
    w.StartArray();
    for (const auto& warning : r.warnings) write_text(w, warning);
    w.EndArray();
  }
  if (!r.stdout_text.empty()) write_member(w, "stdout", r.stdout_text);
  if (!r.stderr_text.empty()) write_member(w, "stderr", r.stderr_text);
  if (!r.diagnostics.empty()) {
    w.Key("diagnostics");
    w.StartArray();
    for (const auto& d : r.diagnostics) write_diagnostic(w, d);
    w.EndArray();
  }
  if (r.tests) write_tests(w, *r.tests);
  if (r.api_calls) write_api_calls(w, *r.api_calls);
  if (!r.files.empty()) {
    w.Key("files");
    w.StartArray();
    for (const auto& file : r.files) encode_out_file(w, file);
    w.EndArray();
  }
  if (r.result_json) {
    // Checked JSON, copied as it is: never parsed into a DOM and written back recursively.
    w.Key("result");
    w.RawValue(r.result_json->data(), r.result_json->size(), rapidjson::kObjectType);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
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
