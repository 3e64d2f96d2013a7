#include "auth_status_json.hpp"

namespace kg::api {

wire::daemon_api::AuthStatus auth_status_message(const session::AuthStatus& status) {
  const auto& id = status.identity;
  wire::daemon_api::AuthStatus message;
  message.plugin = status.plugin;
  message.plugin_loaded = status.plugin_loaded;
  message.mode = plugin::to_string(id.mode);
  message.credential_type = id.credential_type;
  message.email = id.email;
  message.project_id = id.project_id;
  message.quota_project_id = id.quota_project_id;
  message.token_expiry = id.token_expiry_rfc3339;
  message.source = id.source;
  message.problem = id.problem;
  message.login_hint = id.login_hint;
  message.sealed = status.sealed;
  message.program_holds = status.program_holds;
  if (status.signed_in_users) message.signed_in_users_mode = plugin::to_string(*status.signed_in_users);
  return message;
}

std::string auth_status_json(const session::AuthStatus& status) {
  return wire::daemon_api::encode_auth_status(auth_status_message(status));
}

}  // namespace kg::api
