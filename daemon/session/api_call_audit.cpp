#include "api_call_audit.hpp"

#include <algorithm>

namespace kg::session {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

store::ApiCallRecord record_of(const sandbox::ApiExchange& exchange,
                               const api_policy::CallApiPolicy& policy, std::int64_t call_id,
                               const std::string& session_id) {
  const auto& request = exchange.request;
  const api_policy::ApiCall call = api_policy::classify_api_call(request);
  store::ApiCallRecord r;
  r.call_id = call_id;
  r.session_id = session_id;
  r.host = request.host;
  r.http_method = request.http_method;
  r.grpc = request.grpc;
  r.service = call.service;
  r.method = call.method;
  r.resource = call.resource;
  r.project = call.project;
  r.billing_project = call.billing_project;
  r.buckets = joined(call.buckets);
  r.read = call.read;
  r.http_status = exchange.http_status;
  r.grpc_status = exchange.grpc_status.value_or(-1);
  if (exchange.refusal) {
    const auto refused = api_policy::decide(policy, call);
    r.refused_rule = refused ? refused->rule : "proxy";
    r.refusal = *exchange.refusal;
  }
  r.request_bytes = exchange.request_bytes;
  r.response_bytes = exchange.response_bytes;
  r.duration_us = exchange.duration_us;
  return r;
}

}  // namespace

AuditedRun audit_egress_report(const sandbox::EgressCallReport& report,
                               const api_policy::CallApiPolicy& policy, std::int64_t call_id,
                               const std::string& session_id) {
  AuditedRun run;
  run.dropped_by_proxy = report.exchanges_dropped;
  std::size_t refusals = 0;
  for (const auto& exchange : report.exchanges) {
    run.records.push_back(record_of(exchange, policy, call_id, session_id));
    if (!exchange.refusal) continue;
    ++refusals;
    if (std::find(run.warnings.begin(), run.warnings.end(), *exchange.refusal) == run.warnings.end() &&
        run.warnings.size() < kMaxRefusalWarnings) {
      run.warnings.push_back(*exchange.refusal);
    }
  }
  if (refusals > run.warnings.size()) {
    run.warnings.push_back("kode-gopher's egress proxy refused " + std::to_string(refusals) +
                           " API requests in all; the result's api_calls lists the first, "
                           "kode-gopher api-calls SESSION every one");
  }
  return run;
}

void add_to_result(const AuditedRun& run, std::vector<store::ApiCallRecord>& listed,
                   ApiCallTotals& totals) {
  totals.count += run.records.size() + run.dropped_by_proxy;
  totals.dropped += run.dropped_by_proxy;
  // Refused requests first claim the room, then the others in order; the list keeps order.
  std::vector<bool> keep(run.records.size(), false);
  std::size_t room = kMaxResultApiCalls > listed.size() ? kMaxResultApiCalls - listed.size() : 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < run.records.size() && room > 0; ++i) {
      const bool refused = !run.records[i].refused_rule.empty();
      if (keep[i] || (pass == 0 && !refused)) continue;
      keep[i] = true;
      --room;
    }
  }
  for (std::size_t i = 0; i < run.records.size(); ++i) {
    const auto& r = run.records[i];
    if (!r.refused_rule.empty()) ++totals.refused;
    totals.bytes += r.request_bytes + r.response_bytes;
    if (keep[i]) {
      listed.push_back(r);
    } else {
      ++totals.dropped;
    }
  }
}

}  // namespace kg::session
