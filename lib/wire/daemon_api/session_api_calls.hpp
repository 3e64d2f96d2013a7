// The answer of GET /v1/sessions/{id}/api_calls (docs/daemon-api.md; docs/api-policy.md, "The
// audit"): the Google API requests a session's calls made that the egress proxy read, as the
// daemon recorded them in SQLite, for reading after the fact (a result's `api_calls` holds only
// its own call's, bounded). Written by the daemon's API, read by `kode-gopher api-calls`.
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kg::wire::daemon_api {

// One audited request: what a result's api_calls entry says, and where and when it went.
struct AuditedApiCall {
  std::int64_t id = 0;       // the audit row's id: its order across the session
  std::int64_t call_id = 0;  // the call that made it (the result's call_id)
  std::string recorded_at;   // RFC 3339 UTC
  std::string host;
  std::string http_method;
  bool grpc = false;
  std::string service;
  std::string method;
  std::string resource;         // empty: none known
  std::string project;          // empty: none named
  std::string billing_project;  // empty: none named
  std::vector<std::string> buckets;
  bool read = false;
  int http_status = 0;
  std::optional<int> grpc_status;
  std::string refused_rule;  // empty: forwarded; else read_only | projects | buckets | proxy
  std::string refusal;       // the message the program got
  std::uint64_t request_bytes = 0;
  std::uint64_t response_bytes = 0;
  std::uint64_t duration_us = 0;
  bool operator==(const AuditedApiCall&) const = default;
};

struct SessionApiCalls {
  std::string session_id;
  std::uint64_t count = 0;    // every request recorded for the session (api_calls may list fewer)
  std::uint64_t refused = 0;  // of those, refused by the API policy or the proxy
  std::uint64_t dropped = 0;  // past the proxy's bound per call: counted, never recorded
  std::vector<AuditedApiCall> api_calls;  // the first ones recorded, in order
  bool operator==(const SessionApiCalls&) const = default;
};

std::string encode_session_api_calls(const SessionApiCalls& answer);

// Reads an answer parsed within json::kDaemonAnswerLimits; absent members keep their defaults.
// Throws MalformedMessage naming a member of the wrong type ("api_calls[2].http_status").
SessionApiCalls decode_session_api_calls(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
