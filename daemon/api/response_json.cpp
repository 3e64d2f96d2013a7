#include "response_json.hpp"

#include "call_files_routes.hpp"

#include "json_reader.hpp"
#include "checked_result.hpp"
#include "json_body.hpp"

namespace kg::api {
namespace {

void write_session_fields(JsonWriter& w, const store::SessionRecord& s) {
  w.Key("id"); write_string(w, s.id);
  w.Key("client"); write_string(w, s.client);
  w.Key("provider"); write_string(w, s.provider);
  if (!s.sandbox_id.empty()) { w.Key("sandbox_id"); write_string(w, s.sandbox_id); }
  w.Key("runtime"); write_string(w, s.runtime);
  w.Key("state"); write_string(w, s.state);
  w.Key("opened_at"); write_string(w, s.opened_at);
  if (!s.closed_at.empty()) { w.Key("closed_at"); write_string(w, s.closed_at); }
  if (!s.close_reason.empty()) { w.Key("close_reason"); write_string(w, s.close_reason); }
  w.Key("calls"); w.Int64(s.calls);
  w.Key("api_calls"); w.Int64(s.api_calls);
  w.Key("api_calls_refused"); w.Int64(s.api_calls_refused);
  if (!s.identity.empty()) { w.Key("identity"); write_string(w, s.identity); }
  if (!s.owner.empty()) {
    w.Key("owner"); write_string(w, s.owner);
    w.Key("owner_email"); write_string(w, s.owner_email);
  }
}

std::string result_kind(const std::optional<std::string>& result_json) {
  if (!result_json) return {};
  const auto parsed = json::read_json(*result_json, json::kSandboxOutputLimits);
  const auto& doc = parsed.document;
  if (!doc.IsObject()) return "invalid";
  auto it = doc.FindMember("kind");
  return (it != doc.MemberEnd() && it->value.IsString()) ? it->value.GetString() : "invalid";
}

// One audited Google API request of a result's api_calls (docs/daemon-api.md). Its strings
// came from a program's request: written as JSON strings, never trusted as anything else.
void write_api_call(JsonWriter& w, const store::ApiCallRecord& r) {
  w.StartObject();
  w.Key("service"); write_string(w, r.service);
  w.Key("method"); write_string(w, r.method);
  if (!r.resource.empty()) { w.Key("resource"); write_string(w, r.resource); }
  w.Key("read"); w.Bool(r.read);
  w.Key("http_status"); w.Int(r.http_status);
  if (r.grpc_status >= 0) { w.Key("grpc_status"); w.Int(r.grpc_status); }
  w.Key("duration_us"); w.Uint64(r.duration_us);
  w.Key("request_bytes"); w.Uint64(r.request_bytes);
  w.Key("response_bytes"); w.Uint64(r.response_bytes);
  if (!r.refused_rule.empty()) {
    w.Key("refused"); write_string(w, r.refused_rule);
  }
  w.EndObject();
}

void write_api_calls(JsonWriter& w, const session::CallResult& call) {
  const auto& t = call.api_call_totals;
  w.Key("api_calls");
  w.StartObject();
  w.Key("count"); w.Uint64(t.count);
  w.Key("refused"); w.Uint64(t.refused);
  w.Key("bytes"); w.Uint64(t.bytes);
  w.Key("dropped"); w.Uint64(t.dropped);
  w.Key("calls");
  w.StartArray();
  for (const auto& r : call.api_calls) write_api_call(w, r);
  w.EndArray();
  w.EndObject();
}

// Action test: totals, then one entry per test (docs/daemon-api.md, "tests").
void write_tests(JsonWriter& w, const std::vector<plugin::TestCase>& tests) {
  std::uint64_t passed = 0, failed = 0, skipped = 0;
  for (const auto& t : tests) {
    (t.outcome == plugin::TestOutcome::pass   ? passed
     : t.outcome == plugin::TestOutcome::skip ? skipped
                                              : failed)++;
  }
  w.Key("tests");
  w.StartObject();
  w.Key("passed"); w.Uint64(passed);
  w.Key("failed"); w.Uint64(failed);
  w.Key("skipped"); w.Uint64(skipped);
  w.Key("cases");
  w.StartArray();
  for (const auto& t : tests) {
    w.StartObject();
    w.Key("package"); write_string(w, t.package);
    w.Key("name"); write_string(w, t.name);
    w.Key("outcome"); write_string(w, plugin::to_string(t.outcome));
    w.Key("elapsed_ms"); w.Uint64(t.elapsed_ms);
    if (!t.output.empty()) { w.Key("output"); write_string(w, t.output); }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

bool result_is_error(const plugin::ExecuteResult& r) {
  const auto kind = result_kind(r.result_json);
  return r.exit_code != 0 || r.status != plugin::Status::ok || (!kind.empty() && kind != "ok") ||
         !r.warnings.empty();
}

std::string call_result_json(const session::CallResult& call) {
  // Every string and the result below came from a sandbox.
  const auto r = checked_for_response(call.result);
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("call_id"); w.Int64(call.call_id);
  w.Key("session_id"); write_string(w, call.session_id);
  w.Key("phase"); write_string(w, plugin::to_string(r.phase));
  w.Key("mode"); write_string(w, plugin::to_string(r.mode));
  if (call.action != plugin::Action::run) {
    w.Key("action"); write_string(w, plugin::to_string(call.action));
  }
  w.Key("runtime"); write_string(w, call.runtime);
  if (!call.runtime_reason.empty()) {
    w.Key("runtime_reason"); write_string(w, call.runtime_reason);
  }
  w.Key("status"); write_string(w, plugin::to_string(r.status));
  w.Key("exit_code"); w.Int(r.exit_code);
  if (r.signal != 0) { w.Key("signal"); w.Int(r.signal); }
  w.Key("duration_ms"); w.Uint64(call.duration_us / 1000);
  w.Key("queue_ms"); w.Uint64(call.queue_us / 1000);
  w.Key("setup_ms"); w.Uint64(r.setup_us / 1000);
  w.Key("build_ms"); w.Uint64(r.build_us / 1000);
  w.Key("run_ms"); w.Uint64(r.run_us / 1000);
  // The same in microseconds, and where the rest went: the sandbox's requests and the daemon's
  // own work (what is neither queue, setup, nor waiting on the sandbox).
  w.Key("timings_us");
  w.StartObject();
  w.Key("total"); w.Uint64(call.duration_us);
  w.Key("queue"); w.Uint64(call.queue_us);
  w.Key("setup"); w.Uint64(r.setup_us);
  w.Key("build"); w.Uint64(r.build_us);
  w.Key("run"); w.Uint64(r.run_us);
  w.Key("sandbox"); w.Uint64(call.sandbox_us);
  const std::uint64_t accounted = call.queue_us + r.setup_us + call.sandbox_us;
  w.Key("daemon"); w.Uint64(call.duration_us > accounted ? call.duration_us - accounted : 0);
  w.EndObject();
  w.Key("sandbox_requests"); w.Uint(call.sandbox_requests);
  w.Key("tidied"); w.Bool(r.tidied);
  w.Key("cache_hit"); w.Bool(r.cache_hit);
  w.Key("is_error"); w.Bool(result_is_error(r));
  if (!r.warnings.empty() || !r.notices.empty()) {
    w.Key("warnings");
    w.StartArray();
    for (const auto& warning : r.warnings) write_string(w, warning);
    for (const auto& notice : r.notices) write_string(w, notice);
    w.EndArray();
  }
  if (!r.stdout_text.empty()) { w.Key("stdout"); write_string(w, r.stdout_text); }
  if (!r.stderr_text.empty()) { w.Key("stderr"); write_string(w, r.stderr_text); }
  if (!r.diagnostics.empty()) {
    w.Key("diagnostics");
    w.StartArray();
    for (const auto& d : r.diagnostics) {
      w.StartObject();
      w.Key("file"); write_string(w, d.file);
      w.Key("line"); w.Int(d.line);
      w.Key("col"); w.Int(d.col);
      w.Key("message"); write_string(w, d.message);
      if (!d.analyzer.empty()) { w.Key("analyzer"); write_string(w, d.analyzer); }
      w.EndObject();
    }
    w.EndArray();
  }
  if (call.action == plugin::Action::test) write_tests(w, r.tests);
  if (call.api_call_totals.count != 0) write_api_calls(w, call);
  write_out_files(w, call.files);
  if (r.result_json) {
    // Checked JSON, copied as it is: never parsed into a DOM and written back recursively.
    w.Key("result");
    w.RawValue(r.result_json->data(), r.result_json->size(), rapidjson::kObjectType);
  }
  w.EndObject();
  return buffer.GetString();
}

std::string session_json(const store::SessionRecord& session) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_session_fields(w, session);
  w.EndObject();
  return buffer.GetString();
}

std::string sessions_json(const std::vector<store::SessionRecord>& sessions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("sessions");
  w.StartArray();
  for (const auto& s : sessions) {
    w.StartObject();
    write_session_fields(w, s);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

std::string stats_json(const store::Stats& stats) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("sessions");
  w.StartObject();
  w.Key("open"); w.Int64(stats.open_sessions);
  w.Key("total"); w.Int64(stats.total_sessions);
  w.EndObject();
  w.Key("calls");
  w.StartObject();
  w.Key("total"); w.Int64(stats.total_calls);
  w.Key("by_status");
  w.StartObject();
  for (const auto& [status, count] : stats.calls_by_status) {
    w.Key(status.c_str());
    w.Int64(count);
  }
  w.EndObject();
  w.EndObject();
  w.Key("timings");
  w.StartArray();
  for (const auto& t : stats.timings) {
    w.StartObject();
    w.Key("runtime"); write_string(w, t.runtime);
    w.Key("metric"); write_string(w, t.metric);
    w.Key("count"); w.Int64(t.count);
    w.Key("p50"); w.Uint64(t.p50);
    w.Key("p95"); w.Uint64(t.p95);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

std::string error_json(const ApiError& error) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  w.Key("code"); write_string(w, error.code);
  w.Key("message"); write_string(w, error.message);
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace kg::api

namespace kg::api {

namespace {

void write_runtimes(JsonWriter& w, const std::vector<session::RuntimeState>& runtimes) {
  w.StartArray();
  for (const auto& r : runtimes) {
    w.StartObject();
    w.Key("name"); write_string(w, r.name);
    w.Key("available"); w.Bool(r.available);
    w.Key("default"); w.Bool(r.is_default);
    if (!r.description.empty()) { w.Key("description"); write_string(w, r.description); }
    if (!r.chooses.empty()) {
      w.Key("chooses");
      w.StartArray();
      for (const auto& name : r.chooses) write_string(w, name);
      w.EndArray();
    }
    if (!r.reason.empty()) { w.Key("reason"); write_string(w, r.reason); }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string plugins_json(const plugin_host::PluginRegistry& registry,
                         const std::vector<session::RuntimeState>& runtimes) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("plugins");
  w.StartArray();
  for (const auto& p : registry.list()) {
    w.StartObject();
    w.Key("name"); write_string(w, p.name);
    w.Key("kind"); write_string(w, p.kind);
    w.Key("version"); write_string(w, p.version);
    w.Key("description"); write_string(w, p.description);
    w.Key("path"); write_string(w, p.path);
    w.Key("state"); write_string(w, p.state);
    if (!p.reason.empty()) { w.Key("reason"); write_string(w, p.reason); }
    w.EndObject();
  }
  w.EndArray();
  w.Key("runtimes");
  write_runtimes(w, runtimes);
  w.EndObject();
  return buffer.GetString();
}

std::string runtimes_json(const std::vector<session::RuntimeState>& runtimes) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("runtimes");
  write_runtimes(w, runtimes);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace kg::api
