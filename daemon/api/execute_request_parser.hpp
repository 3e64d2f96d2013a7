// Turns the body of POST /v1/execute and /v1/sessions/{id}/execute into a CallRequest, with a
// message that says exactly what is wrong (JSON parse errors keep RapidJSON's reason and offset).
#pragma once

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

}  // namespace kg::api
