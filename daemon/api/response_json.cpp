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

wire::daemon_api::ApiCall api_call_message(const store::ApiCallRecord& r) {
  wire::daemon_api::ApiCall call;
  call.service = r.service;
  call.method = r.method;
  call.resource = r.resource;
  call.read = r.read;
  call.http_status = r.http_status;
  if (r.grpc_status >= 0) call.grpc_status = r.grpc_status;
  call.duration_us = r.duration_us;
  call.request_bytes = r.request_bytes;
  call.response_bytes = r.response_bytes;
  call.refused_rule = r.refused_rule;
  return call;
}

wire::daemon_api::ApiCalls api_calls_message(const session::CallResult& call) {
  const auto& t = call.api_call_totals;
  wire::daemon_api::ApiCalls calls{t.count, t.refused, t.bytes, t.dropped, {}};
  for (const auto& r : call.api_calls) calls.calls.push_back(api_call_message(r));
  return calls;
}

// Action test: totals, then one entry per test (docs/daemon-api.md, "tests").
wire::daemon_api::TestReport test_report_message(const std::vector<plugin::TestCase>& tests) {
  wire::daemon_api::TestReport report;
  for (const auto& t : tests) {
    (t.outcome == plugin::TestOutcome::pass   ? report.passed
     : t.outcome == plugin::TestOutcome::skip ? report.skipped
                                              : report.failed)++;
    report.cases.push_back({t.package, t.name, std::string(plugin::to_string(t.outcome)),
                            t.elapsed_ms, t.output});
  }
  return report;
}

}  // namespace

bool result_is_error(const plugin::ExecuteResult& r) {
  const auto kind = result_kind(r.result_json);
  return r.exit_code != 0 || r.status != plugin::Status::ok || (!kind.empty() && kind != "ok") ||
         !r.warnings.empty();
}

wire::daemon_api::ExecuteResult execute_result_message(const session::CallResult& call) {
  // Every string and the result below came from a sandbox.
  const auto r = checked_for_response(call.result);
  wire::daemon_api::ExecuteResult m;
  m.call_id = call.call_id;
  m.session_id = call.session_id;
  m.phase = plugin::to_string(r.phase);
  m.mode = plugin::to_string(r.mode);
  if (call.action != plugin::Action::run) m.action = plugin::to_string(call.action);
  m.runtime = call.runtime;
  m.runtime_reason = call.runtime_reason;
  m.status = plugin::to_string(r.status);
  m.exit_code = r.exit_code;
  m.signal = r.signal;
  m.duration_ms = call.duration_us / 1000;
  m.queue_ms = call.queue_us / 1000;
  m.setup_ms = r.setup_us / 1000;
  m.build_ms = r.build_us / 1000;
  m.run_ms = r.run_us / 1000;
  // The same in microseconds, and where the rest went: the sandbox's requests and the daemon's
  // own work (what is neither queue, setup, nor waiting on the sandbox).
  const std::uint64_t accounted = call.queue_us + r.setup_us + call.sandbox_us;
  m.timings_us = {call.duration_us, call.queue_us, r.setup_us, r.build_us, r.run_us,
                  call.sandbox_us, call.duration_us > accounted ? call.duration_us - accounted : 0};
  m.sandbox_requests = call.sandbox_requests;
  m.tidied = r.tidied;
  m.cache_hit = r.cache_hit;
  m.is_error = result_is_error(r);
  m.warnings = r.warnings;
  m.warnings.insert(m.warnings.end(), r.notices.begin(), r.notices.end());
  m.stdout_text = r.stdout_text;
  m.stderr_text = r.stderr_text;
  for (const auto& d : r.diagnostics) {
    m.diagnostics.push_back({d.file, d.line, d.col, d.message, d.analyzer});
  }
  if (call.action == plugin::Action::test) m.tests = test_report_message(r.tests);
  if (call.api_call_totals.count != 0) m.api_calls = api_calls_message(call);
  for (const auto& file : call.files) m.files.push_back(out_file_message(file));
  m.result_json = r.result_json;
  return m;
}

std::string call_result_json(const session::CallResult& call) {
  return wire::daemon_api::encode_execute_result(execute_result_message(call));
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

wire::daemon_api::PluginsListing plugins_listing(
    const plugin_host::PluginRegistry& registry,
    const std::vector<session::RuntimeState>& runtimes) {
  wire::daemon_api::PluginsListing listing = runtimes_listing(runtimes);
  listing.plugins.emplace();
  for (const auto& p : registry.list()) {
    listing.plugins->push_back({p.name, p.kind, p.version, p.description, p.path, p.state,
                                p.reason});
  }
  return listing;
}

wire::daemon_api::PluginsListing runtimes_listing(
    const std::vector<session::RuntimeState>& runtimes) {
  wire::daemon_api::PluginsListing listing;
  for (const auto& r : runtimes) {
    listing.runtimes.push_back({r.name, r.available, r.is_default, r.description, r.chooses,
                                r.reason});
  }
  return listing;
}

std::string plugins_json(const plugin_host::PluginRegistry& registry,
                         const std::vector<session::RuntimeState>& runtimes) {
  return wire::daemon_api::encode_plugins_listing(plugins_listing(registry, runtimes));
}

std::string runtimes_json(const std::vector<session::RuntimeState>& runtimes) {
  return wire::daemon_api::encode_plugins_listing(runtimes_listing(runtimes));
}

}  // namespace kg::api
