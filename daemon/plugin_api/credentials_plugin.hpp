// The interface a credential plugin (creds-adc, creds-workload) implements: which Google
// identity programs run as, and what one run gets of it.
//
// The daemon picks one plugin by config ([credentials] plugin) and asks it per call, never per
// sandbox start: credentials_for_run() from the call's thread, identity() from API threads
// (`kode-gopher auth status`, GET /v1/auth, gcp_auth_status). Both may run on several threads
// at once, so a plugin guards its caches itself. Only a short-lived access token reaches a
// sandbox unless the plugin's own config opts in to more (RunCredentials::files).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sandbox_handle.hpp"

namespace kg::plugin {

// docs/contracts.md §4: sealed (the default of creds-adc and creds-workload: the sandbox gets a
// worthless placeholder, and the daemon's egress proxy puts the real short-lived token in its
// place on requests to Google API hosts), forwarded (the user's own credentials file reaches the
// sandbox, an opt-in), access-token (a short-lived token minted on the host is all the sandbox
// gets, an opt-in), workload (the daemon's own workload identity, as a short-lived token in the
// sandbox, an opt-in), none (programs run without).
enum class CredentialMode { forwarded, access_token, workload, none, sealed };

// Who programs run as. Empty strings are unknown.
struct Identity {
  CredentialMode mode = CredentialMode::none;
  // authorized_user | service_account | impersonated_service_account | gce_metadata
  std::string credential_type;
  std::string email;
  std::string project_id;
  std::string quota_project_id;
  std::string source;  // where the identity comes from: an ADC file's path, a metadata server
  // When mode is none, or the identity cannot mint tokens: what is wrong, and exactly how to
  // log in (the command, or which variable to set). Empty when all is well.
  std::string problem;
  std::string login_hint;
  // Expiry of the token the plugin holds now (UTC RFC 3339); empty when it holds none.
  std::string token_expiry_rfc3339;
};

// The call the credentials are for, so a plugin can log it.
struct RunContext {
  std::string session_id;
  std::int64_t call_id = 0;
};

// What one run gets.
struct RunCredentials {
  CredentialMode mode = CredentialMode::access_token;  // never none
  // The real token. In mode sealed the daemon serves the sandbox a placeholder instead and
  // keeps this for its egress proxy (docs/credentials.md); otherwise the sandbox's metadata
  // emulator serves it.
  CommandCredentials token;
  std::vector<std::string> scopes;   // the token's OAuth scopes
  std::string identity;              // who the token is for: the email, else type and source
  std::string credential_type;
  // Environment of the user's program (beside what the metadata emulator sets).
  std::vector<std::pair<std::string, std::string>> env;
  // Files written under /app next to the program: only where the plugin's config opts in (a
  // copy of the ADC file, mode forwarded). Anything here is readable by the program.
  std::vector<SourceFile> files;
};

// No token could be made: the message names the cause (a missing or malformed credentials
// file, what the token endpoint answered...) and what to do.
class CredentialsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CredentialsPlugin {
 public:
  virtual ~CredentialsPlugin() = default;
  // Never throws: a plugin that finds no credentials says mode none, with problem and
  // login_hint set. May make network requests (to learn the email), answered from a cache.
  virtual Identity identity() = 0;
  // A token valid for at least five more minutes (cached and refreshed as needed), for one run.
  // nullopt when the plugin has no credentials at all (mode none): the run goes without.
  // Throws CredentialsError when there are credentials but no token can be made.
  virtual std::optional<RunCredentials> credentials_for_run(const RunContext& run) = 0;
};

inline std::string_view to_string(CredentialMode mode) noexcept {
  switch (mode) {
    case CredentialMode::forwarded: return "forwarded";
    case CredentialMode::access_token: return "access-token";
    case CredentialMode::workload: return "workload";
    case CredentialMode::none: return "none";
    case CredentialMode::sealed: return "sealed";
  }
  return "none";
}

}  // namespace kg::plugin
