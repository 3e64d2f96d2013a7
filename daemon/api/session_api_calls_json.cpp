#include "session_api_calls_json.hpp"

#include "daemon_api/session_api_calls.hpp"

namespace kg::api {
namespace {

// The store keeps a request's buckets ','-separated (store.hpp, ApiCallRecord).
std::vector<std::string> split_buckets(const std::string& joined) {
  std::vector<std::string> buckets;
  std::size_t start = 0;
  while (start < joined.size()) {
    const auto comma = joined.find(',', start);
    const auto end = comma == std::string::npos ? joined.size() : comma;
    if (end > start) buckets.push_back(joined.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return buckets;
}

wire::daemon_api::AuditedApiCall audited_call(const store::ApiCallRecord& r) {
  wire::daemon_api::AuditedApiCall c;
  c.id = r.id;
  c.call_id = r.call_id;
  c.recorded_at = r.recorded_at;
  c.host = r.host;
  c.http_method = r.http_method;
  c.grpc = r.grpc;
  c.service = r.service;
  c.method = r.method;
  c.resource = r.resource;
  c.project = r.project;
  c.billing_project = r.billing_project;
  c.buckets = split_buckets(r.buckets);
  c.read = r.read;
  c.http_status = r.http_status;
  if (r.grpc_status >= 0) c.grpc_status = r.grpc_status;
  c.refused_rule = r.refused_rule;
  c.refusal = r.refusal;
  c.request_bytes = r.request_bytes;
  c.response_bytes = r.response_bytes;
  c.duration_us = r.duration_us;
  return c;
}

}  // namespace

std::string session_api_calls_json(ApiContext& context, const std::string& session_id) {
  const store::SessionRecord session = context.sessions.get(session_id);
  wire::daemon_api::SessionApiCalls answer;
  answer.session_id = session.id;
  answer.count = static_cast<std::uint64_t>(session.api_calls);
  answer.refused = static_cast<std::uint64_t>(session.api_calls_refused);
  for (const auto& call : context.store.list_calls(session_id)) {
    answer.dropped += call.api_calls_dropped;
  }
  for (const auto& record : context.store.list_session_api_calls(session_id, kSessionApiCallsListed)) {
    answer.api_calls.push_back(audited_call(record));
  }
  return wire::daemon_api::encode_session_api_calls(answer);
}

}  // namespace kg::api
