#include "execute_result.hpp"

#include "json_fields.hpp"
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

void encode_out_file(JsonWriter& w, const OutFile& file) {
  w.StartObject();
  write_member(w, "name", file.name);
  w.Key("size"); w.Uint64(file.size);
  write_member(w, "media_type", file.media_type);
  if (!file.uri.empty()) write_member(w, "uri", file.uri);
  w.EndObject();
}

}  // namespace

std::string encode_files_listing(const std::vector<OutFile>& files) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartArray();
  for (const auto& file : files) encode_out_file(w, file);
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
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

}  // namespace kg::wire::daemon_api
