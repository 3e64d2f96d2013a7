// The daemon API's side of the files a program leaves under /app/out (docs/daemon-api.md,
// "Files a call left"): the `files` list of a call's result, and the routes
// GET /v1/sessions/{id}/files (every file the session's calls left) and
// GET /v1/sessions/{id}/calls/{call}/files/{name} (one file's bytes, with its media type).
// Called by api_routes.cpp on an API thread.
#pragma once

#include <string>
#include <vector>

#include "api_context.hpp"
#include "api_routes.hpp"
#include "daemon_api/execute_result.hpp"
#include "json_body.hpp"

namespace kg::api {

// One file as the daemon API sends it (its wire codec: lib/wire/daemon_api/execute_result.hpp).
wire::daemon_api::OutFile out_file_message(const session::OutFile& file);

// parts: the request path split at '/', starting "v1", "sessions", id. Returns nullopt when the
// path is not one of the two routes. Throws what SessionManager::call_file throws, and
// RouteNotFoundError for a malformed call id.
std::optional<ApiResponse> route_call_files(ApiContext& context, const ApiRequest& request,
                                            const std::vector<std::string>& parts);

}  // namespace kg::api
