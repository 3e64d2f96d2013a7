// The daemon API's routes (docs/daemon-api.md): each takes the parsed request and returns the
// status and JSON body, or throws; ApiRequestHandler maps what they throw.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "api_context.hpp"

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

// Dispatches by method and path. Throws RouteNotFoundError, MethodNotAllowedError and whatever
// the session layer throws.
ApiResponse route_request(ApiContext& context, const ApiRequest& request);

}  // namespace kg::api
