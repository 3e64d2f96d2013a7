// GET /v1/auth: which Google identity programs run as (CallCredentials::status()), as JSON:
// {plugin, plugin_loaded, mode, credential_type?, email?, project_id?, quota_project_id?,
//  token_expiry?, source?, problem?, login_hint?}; absent members are unknown.
#pragma once

#include <string>

#include "call_credentials.hpp"

namespace kg::api {

std::string auth_status_json(const session::AuthStatus& status);

}  // namespace kg::api
