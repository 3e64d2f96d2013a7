#include "metrics_text.hpp"

#include <chrono>

#include "prometheus_text.hpp"

namespace kg::api {
namespace {

std::vector<double> bucket_seconds() {
  std::vector<double> bounds;
  for (const std::uint64_t ms : store::kDurationBucketsMs) bounds.push_back(static_cast<double>(ms) / 1000);
  return bounds;
}

}  // namespace

std::string metrics_text(ApiContext& context) {
  const store::CallMetrics calls = context.store.call_metrics();
  metrics::PrometheusText out;

  out.family("kode_gopher_build_info", "gauge", "The daemon's version, as a label; always 1.");
  out.sample("kode_gopher_build_info",
             {{"version", context.version}, {"provider", context.provider_name}}, 1);
  out.family("kode_gopher_uptime_seconds", "gauge", "Seconds since the daemon started.");
  out.sample("kode_gopher_uptime_seconds", {},
             std::chrono::duration<double>(std::chrono::steady_clock::now() - context.started_at)
                 .count());

  out.family("kode_gopher_calls_total", "counter",
             "Finished calls by runtime, status (ok, compile_error, runtime_error, timeout, ...) "
             "and the phase they ended in.");
  for (const store::CallCount& count : calls.finished) {
    out.sample("kode_gopher_calls_total",
               {{"runtime", count.runtime}, {"status", count.status}, {"phase", count.phase}},
               static_cast<double>(count.count));
  }
  out.family("kode_gopher_call_duration_seconds", "histogram",
             "Wall time of finished calls, queue to result, by runtime.");
  const std::vector<double> bounds = bucket_seconds();
  for (const store::CallDurations& durations : calls.durations) {
    out.histogram("kode_gopher_call_duration_seconds", {{"runtime", durations.runtime}}, bounds,
                  durations.cumulative, static_cast<double>(durations.sum_ms) / 1000,
                  durations.count);
  }
  out.family("kode_gopher_calls_interrupted_total", "counter",
             "Calls a daemon stop cut off (recorded as interrupted at the next start).");
  out.sample("kode_gopher_calls_interrupted_total", {},
             static_cast<double>(calls.interrupted_calls));
  out.family("kode_gopher_calls_running", "gauge", "Calls running now.");
  out.sample("kode_gopher_calls_running", {}, static_cast<double>(calls.running_calls));
  out.family("kode_gopher_sessions_open", "gauge", "Open sessions, each holding a sandbox.");
  out.sample("kode_gopher_sessions_open", {}, static_cast<double>(calls.open_sessions));
  out.family("kode_gopher_warm_sandboxes", "gauge",
             "Sandboxes started ahead of a session and ready to be taken.");
  out.sample("kode_gopher_warm_sandboxes", {},
             static_cast<double>(context.sessions.warm_sandboxes_ready()));
  out.family("kode_gopher_egress_refusals_total", "counter",
             "Connections the egress proxy refused during calls, by reason (a fixed set; no host "
             "is named).");
  for (const auto& [reason, count] : calls.egress_refusals) {
    out.sample("kode_gopher_egress_refusals_total", {{"reason", reason}},
               static_cast<double>(count));
  }
  out.family("kode_gopher_api_calls_total", "counter",
             "Google API requests the egress proxy read, by service and verdict (forwarded or "
             "refused, with the rule that refused it).");
  for (const store::ApiCallCount& count : calls.api_calls) {
    out.sample("kode_gopher_api_calls_total",
               {{"service", count.service},
                {"verdict", count.rule.empty() ? "forwarded" : "refused"},
                {"rule", count.rule}},
               static_cast<double>(count.count));
  }
  if (const auto provider = context.sessions.provider_metrics()) {
    out.family("kode_gopher_kubernetes_claims", "gauge",
               "This daemon's SandboxClaims by state: pending (created, not yet ready) and "
               "ready (held by a session or the warm pool).");
    for (const auto& [state, count] : provider->claims) {
      out.sample("kode_gopher_kubernetes_claims", {{"state", state}}, static_cast<double>(count));
    }
    out.family("kode_gopher_kubernetes_claim_failures_total", "counter",
               "Claims that never became ready (failed, timed out or the wrong image) since the "
               "daemon started.");
    out.sample("kode_gopher_kubernetes_claim_failures_total", {},
               static_cast<double>(provider->claim_failures));
  }
  if (!context.team.url.empty()) {
    out.family("kode_gopher_team_users", "gauge",
               "Team mode: signed-in users with at least one open session.");
    out.sample("kode_gopher_team_users", {}, static_cast<double>(calls.users_with_open_sessions));
  }
  return out.text();
}

}  // namespace kg::api
