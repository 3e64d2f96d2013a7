// The daemon's side of credentials: the one credential plugin the config picked
// ([credentials] plugin), asked for a short-lived token per call (never per sandbox start),
// with every token it hands out recorded in the store (whose, for which call, until when;
// never the token). Also answers `auth status` (GET /v1/auth).
//
// Owned by Instance, used by SessionManager (call threads) and the API (status); thread-safe
// as long as the plugin is, which the plugin interface requires.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "credentials_plugin.hpp"
#include "host_services.hpp"
#include "store/store.hpp"

namespace kg::session {

// The configured credential plugin could not make this call's token; the message says why
// (from the plugin: the file, the endpoint and what it answered) and what to do.
class CredentialsUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct AuthStatus {
  std::string plugin;  // as configured: creds-adc | creds-workload | none
  bool plugin_loaded = false;
  plugin::Identity identity;  // mode none (with problem and login_hint) when there is nothing
  // Mode sealed: what programs hold and what unseals it with this daemon's sandboxes
  // (set_sealed_note); empty in other modes.
  std::string sealed;
  // The other modes with credentials: what a program holds (unsealed_mode_note); else empty.
  std::string program_holds;
  // Team mode with [team] run_as = user: the mode ([team] user_token_mode) in which each
  // signed-in user's calls carry that user's own token; the rest then speaks only of calls
  // without a signed-in user (docs/team-mode.md). Unset otherwise.
  std::optional<plugin::CredentialMode> signed_in_users;
};

// Team mode with [team] run_as = user: the signed-in user's own upstream token for one run
// (refreshed on the host). Throws plugin::CredentialsError.
using OwnerCredentialSource = std::function<plugin::RunCredentials(const std::string& owner)>;

// Where owned sessions' tokens come from, and in which mode they reach the sandbox ([team]
// user_token_mode): sealed (a placeholder in the sandbox; the egress proxy adds the user's
// token, exactly as for a plugin's mode sealed) or access_token (the token itself).
struct OwnerCredentials {
  OwnerCredentialSource source;
  plugin::CredentialMode mode = plugin::CredentialMode::sealed;
};

class CallCredentials {
 public:
  // plugin: the loaded plugin named plugin_name, or nullptr when it is "none" or not loaded
  // (not_loaded_reason then says why: not found in the plugin directories, failed to start).
  CallCredentials(std::string plugin_name, plugin::CredentialsPlugin* plugin,
                  std::string not_loaded_reason, store::Store& store, plugin::Logger& logger);

  // The plugin's identity, and in team mode with run_as = user what signed-in users' calls
  // run with. Never throws.
  AuthStatus status() const;
  // What a signed-in team user's calls run with (use_owner_credentials): their own identity,
  // from their sign-in at `issuer`, in the owner credentials' mode. Never throws.
  AuthStatus owner_status(const std::string& email, const std::string& issuer) const;
  // True when calls may carry credentials (a plugin is configured and loaded).
  bool active() const noexcept { return plugin_ != nullptr; }

  // The call's credentials, recorded as a grant of that call; nullopt when the call goes
  // without (no plugin, or the plugin has no credentials at all). Throws
  // CredentialsUnavailableError.
  // A session with an owner gets that user's own token when an owner source is set, in the
  // owner credentials' mode (the session layer then seals it like any sealed credentials).
  std::optional<plugin::RunCredentials> for_call(const std::string& session_id,
                                                 std::int64_t call_id,
                                                 const std::string& owner = {});

  // What mode sealed means with this daemon's sandboxes (their network, their provider), shown
  // by status() when the plugin reports mode sealed. Set once, before serving.
  void set_sealed_note(std::string note) { sealed_note_ = std::move(note); }

  // Sets where owned sessions' tokens come from (team mode, run_as = user); set once, before
  // the first call, and cleared (an empty source) when team mode stops, while the daemon API
  // may still be answering.
  void use_owner_credentials(OwnerCredentials owner);

 private:
  AuthStatus plugin_status() const;
  OwnerCredentials owner() const;

  std::string plugin_name_;
  plugin::CredentialsPlugin* plugin_;
  std::string not_loaded_reason_;
  store::Store& store_;
  plugin::Logger& logger_;
  mutable std::mutex owner_mutex_;
  OwnerCredentials owner_;  // guarded by owner_mutex_
  std::string sealed_note_;
};

}  // namespace kg::session
