// GET /v1/auth: which Google identity programs run as (CallCredentials::status()), as the
// AuthStatus message (lib/wire/daemon_api/auth_status.hpp: its value for team mode's in-process
// MCP endpoint, its JSON for the route).
#pragma once

#include "daemon_api/auth_status.hpp"

#include <string>

#include "call_credentials.hpp"

namespace kg::api {

wire::daemon_api::AuthStatus auth_status_message(const session::AuthStatus& status);
std::string auth_status_json(const session::AuthStatus& status);

}  // namespace kg::api
