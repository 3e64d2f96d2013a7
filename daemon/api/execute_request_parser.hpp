// Turns the body of POST /v1/execute and /v1/sessions/{id}/execute into a CallRequest, with a
// message that says exactly what is wrong (JSON parse errors keep RapidJSON's reason and offset).
#pragma once

#include "daemon_api/execute_request.hpp"

#include <string>
#include <string_view>

#include "session_manager.hpp"

namespace kg::api {

struct ParsedExecute {
  session::CallRequest call;
  std::string client;  // only for the one-shot route
};

// Throws BadRequestError.
ParsedExecute parse_execute_request(std::string_view body);

// The same for a request already in memory (team mode's MCP endpoint): the codec's checks
// (check_execute_request), then the call. Throws BadRequestError.
ParsedExecute parsed_execute(wire::daemon_api::ExecuteRequest request);

}  // namespace kg::api
