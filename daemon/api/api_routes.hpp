// The daemon API's routes (docs/daemon-api.md): each takes the parsed request and returns the
// status and JSON body, or throws; ApiRequestHandler maps what they throw.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "api_context.hpp"
#include "daemon_api/execute_request.hpp"
#include "daemon_api/execute_result.hpp"
#include "daemon_api/package_docs.hpp"

namespace kg::api {

struct ApiRequest {
  std::string method;
  std::string path;   // without the query
  std::string query;  // without '?'
  std::string body;
  // Where execute routes report phase changes (the NDJSON stream); null: the log only.
  plugin::ProgressSink* progress = nullptr;
  // True once the client has hung up; polled while the request waits for a session slot.
  std::function<bool()> client_gone;
  // Where execute routes stream the program's output (the NDJSON stream); null: nowhere.
  sandbox::OutputSink* output = nullptr;
};

// Whether the route streams progress when asked to (the execute routes).
bool is_execute_route(const std::string& method, const std::string& path);

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// POST /v1/sessions/{id}/execute for a request already in memory (team mode's MCP endpoint):
// the same checks and call as the route, and its answer as a value, with no JSON text either
// way. Throws what the route throws.
wire::daemon_api::ExecuteResult execute_in_session(ApiContext& context,
                                                   const std::string& session_id,
                                                   wire::daemon_api::ExecuteRequest request,
                                                   plugin::ProgressSink* progress,
                                                   sandbox::OutputSink* output);

// POST /v1/sessions/{id}/docs for a request already in memory (team mode's MCP endpoint).
// Throws what the route throws.
wire::daemon_api::DocsAnswer package_docs(ApiContext& context, const std::string& session_id,
                                          wire::daemon_api::DocsRequest request);

// Dispatches by method and path. Throws RouteNotFoundError, MethodNotAllowedError and whatever
// the session layer throws.
ApiResponse route_request(ApiContext& context, const ApiRequest& request);

}  // namespace kg::api
