#include "call_credentials.hpp"

#include "error_chain.hpp"
#include "sealed_credentials.hpp"

namespace kg::session {

CallCredentials::CallCredentials(std::string plugin_name, plugin::CredentialsPlugin* plugin,
                                 std::string not_loaded_reason, store::Store& store,
                                 plugin::Logger& logger)
    : plugin_name_(std::move(plugin_name)),
      plugin_(plugin),
      not_loaded_reason_(std::move(not_loaded_reason)),
      store_(store),
      logger_(logger) {}

void CallCredentials::use_owner_credentials(OwnerCredentials owner) {
  const std::lock_guard lock(owner_mutex_);
  owner_ = std::move(owner);
}

OwnerCredentials CallCredentials::owner() const {
  const std::lock_guard lock(owner_mutex_);
  return owner_;
}

AuthStatus CallCredentials::status() const {
  AuthStatus status = plugin_status();
  const OwnerCredentials owner = this->owner();
  if (owner.source) status.signed_in_users = owner.mode;
  return status;
}

AuthStatus CallCredentials::plugin_status() const {
  AuthStatus status;
  status.plugin = plugin_name_;
  status.plugin_loaded = plugin_ != nullptr;
  if (plugin_name_ == "none") {
    status.identity.problem = "No credential plugin is configured ([credentials] plugin = none), "
                              "so programs run without Google credentials";
    status.identity.login_hint = "set [credentials] plugin = creds-adc (your Application Default "
                                 "Credentials) or creds-workload (the metadata server's identity) "
                                 "in the daemon's config and restart it";
    return status;
  }
  if (plugin_ == nullptr) {
    status.identity.problem = "The credential plugin " + plugin_name_ + " is not loaded (" +
                              not_loaded_reason_ + "), so programs run without Google credentials";
    status.identity.login_hint = "install the " + plugin_name_ + " plugin in one of the daemon's "
                                 "[plugins] dirs (build it with meson -Dplugin_" +
                                 (plugin_name_ == "creds-adc" ? std::string("creds_adc")
                                                              : std::string("creds_workload")) +
                                 "=enabled) and restart the daemon, or set [credentials] plugin "
                                 "= none";
    return status;
  }
  try {
    status.identity = plugin_->identity();
    if (status.identity.mode == plugin::CredentialMode::sealed) status.sealed = sealed_note_;
    status.program_holds = unsealed_mode_note(status.identity.mode);
  } catch (...) {
    status.identity = {};
    status.identity.problem = "The credential plugin " + plugin_name_ + " failed to report its "
                              "identity: " + describe_error_chain(std::current_exception());
  }
  return status;
}

AuthStatus CallCredentials::owner_status(const std::string& email,
                                         const std::string& issuer) const {
  const plugin::CredentialMode mode = owner().mode;
  AuthStatus status;
  status.plugin = "team-user";
  status.plugin_loaded = true;
  status.identity.mode = mode;
  status.identity.credential_type = "authorized_user";
  status.identity.email = email;
  status.identity.source = "your sign-in to this kode-gopher (" + issuer +
                           "); each call gets a short-lived token of yours";
  if (mode == plugin::CredentialMode::sealed) {
    status.identity.source += ", which stays in the daemon";
    status.sealed = sealed_note_;
  }
  status.program_holds = unsealed_mode_note(mode);
  return status;
}

std::optional<plugin::RunCredentials> CallCredentials::for_call(const std::string& session_id,
                                                                std::int64_t call_id,
                                                                const std::string& owner) {
  const OwnerCredentials owner_credentials = this->owner();
  const bool as_owner = owner_credentials.source && !owner.empty();
  if (!as_owner && plugin_ == nullptr) return std::nullopt;
  const std::string source_name = as_owner ? "team-user" : plugin_name_;
  std::optional<plugin::RunCredentials> credentials;
  try {
    if (as_owner) {
      credentials = owner_credentials.source(owner);
      credentials->mode = owner_credentials.mode;
    } else {
      credentials = plugin_->credentials_for_run(plugin::RunContext{session_id, call_id});
    }
  } catch (...) {
    std::throw_with_nested(CredentialsUnavailableError(
        as_owner ? "No Google credentials for this call: your sign-in's Google token could not "
                   "be refreshed; sign in again (your MCP client's authenticate action)"
                 : "No Google credentials for this call (" + plugin_name_ +
                       "; `kode-gopher auth status` shows the identity)"));
  }
  if (!credentials) return std::nullopt;
  if (credentials->mode == plugin::CredentialMode::none || credentials->token.access_token.empty()) {
    throw CredentialsUnavailableError("The credential source " + source_name +
                                      " answered credentials without an access token");
  }
  store::GrantRecord grant;
  grant.session_id = session_id;
  grant.call_id = call_id;
  grant.plugin = source_name;
  grant.mode = std::string(plugin::to_string(credentials->mode));
  grant.identity = credentials->identity;
  grant.credential_type = credentials->credential_type;
  for (const auto& scope : credentials->scopes) grant.scopes += (grant.scopes.empty() ? "" : " ") + scope;
  grant.expires_at = credentials->token.expiry_rfc3339;
  store_.record_grant(grant);
  logger_.log(plugin::LogLevel::info, "Call " + std::to_string(call_id) + " of session " +
                                          session_id + " runs as " + grant.identity + " (" +
                                          grant.mode + ", token until " + grant.expires_at + ")");
  return credentials;
}

}  // namespace kg::session
