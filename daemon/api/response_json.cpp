#include "response_json.hpp"

#include "call_files_routes.hpp"
#include "json_reader.hpp"
#include "checked_result.hpp"

namespace kg::api {
namespace {

wire::daemon_api::Session session_message(const store::SessionRecord& s) {
  wire::daemon_api::Session m;
  m.id = s.id;
  m.client = s.client;
  m.provider = s.provider;
  m.sandbox_id = s.sandbox_id;
  m.runtime = s.runtime;
  m.state = s.state;
  m.opened_at = s.opened_at;
  m.closed_at = s.closed_at;
  m.close_reason = s.close_reason;
  m.calls = s.calls;
  m.api_calls = s.api_calls;
  m.api_calls_refused = s.api_calls_refused;
  m.identity = s.identity;
  m.owner = s.owner;
  m.owner_email = s.owner_email;
  return m;
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
  return wire::daemon_api::encode_session(session_message(session));
}

std::string sessions_json(const std::vector<store::SessionRecord>& sessions) {
  wire::daemon_api::SessionsListing listing;
  for (const auto& s : sessions) listing.sessions.push_back(session_message(s));
  return wire::daemon_api::encode_sessions_listing(listing);
}

std::string stats_json(const store::Stats& stats) {
  wire::daemon_api::Stats message;
  message.open_sessions = stats.open_sessions;
  message.total_sessions = stats.total_sessions;
  message.total_calls = stats.total_calls;
  // std::map: by status name, the order the answer has always had.
  message.calls_by_status.assign(stats.calls_by_status.begin(), stats.calls_by_status.end());
  for (const auto& t : stats.timings) {
    message.timings.push_back({t.runtime, t.metric, t.count, t.p50, t.p95});
  }
  return wire::daemon_api::encode_stats(message);
}

std::string error_json(const ApiError& error) {
  return wire::daemon_api::encode_error_body({error.code, error.message});
}

}  // namespace kg::api

namespace kg::api {

wire::daemon_api::PluginsListing plugins_listing(
    const plugin_host::PluginRegistry& registry,
    const std::vector<session::RuntimeState>& runtimes, const config::LimitsConfig& limits) {
  wire::daemon_api::PluginsListing listing = runtimes_listing(runtimes, limits);
  listing.plugins.emplace();
  for (const auto& p : registry.list()) {
    listing.plugins->push_back({p.name, p.kind, p.version, p.description, p.path, p.state,
                                p.reason});
  }
  return listing;
}

wire::daemon_api::PluginsListing runtimes_listing(
    const std::vector<session::RuntimeState>& runtimes, const config::LimitsConfig& limits) {
  wire::daemon_api::PluginsListing listing;
  for (const auto& r : runtimes) {
    listing.runtimes.push_back({r.name, r.available, r.is_default, r.description, r.chooses,
                                r.reason});
  }
  listing.limits = wire::daemon_api::CallLimits{limits.run_timeout_ms, limits.max_run_timeout_ms,
                                                limits.build_timeout_ms, limits.output_bytes};
  return listing;
}

std::string plugins_json(const plugin_host::PluginRegistry& registry,
                         const std::vector<session::RuntimeState>& runtimes,
                         const config::LimitsConfig& limits) {
  return wire::daemon_api::encode_plugins_listing(plugins_listing(registry, runtimes, limits));
}

std::string runtimes_json(const std::vector<session::RuntimeState>& runtimes,
                          const config::LimitsConfig& limits) {
  return wire::daemon_api::encode_plugins_listing(runtimes_listing(runtimes, limits));
}

}  // namespace kg::api
