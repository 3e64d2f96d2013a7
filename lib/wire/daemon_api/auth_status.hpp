// The answer of GET /v1/auth (docs/daemon-api.md, "AuthStatus"): which Google identity programs
// run as, and what they can obtain (docs/credentials.md). Written by the daemon's API
// (daemon/api/auth_status_json.cpp), read by `kode-gopher auth status` and the MCP tool
// gcp_auth_status; team mode's MCP endpoint takes the value itself. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace kg::wire::daemon_api {

// Every text member is left out of the JSON when empty.
struct AuthStatus {
  std::string plugin;  // the credentials plugin, "team-user", or "none"
  bool plugin_loaded = false;
  std::string mode;  // none, sealed, access-token, forwarded, workload
  std::string credential_type;
  std::string email;
  std::string project_id;
  std::string quota_project_id;
  std::string token_expiry;  // RFC 3339
  std::string source;
  std::string problem;     // what is wrong, when programs get no working credentials
  std::string login_hint;  // what the user runs on the daemon's host to fix it
  std::string sealed;      // in mode sealed: what a program holds instead of the token
  // In modes access-token, workload and forwarded: what a program holds (a real token, in
  // forwarded also the ADC file) and where it can use it.
  std::string program_holds;
  // Team mode with [team] run_as = user: each signed-in user's calls run as that user's own
  // identity, in this mode ([team] user_token_mode: sealed or access-token); the members above
  // then describe only calls without a signed-in user (docs/team-mode.md).
  std::string signed_in_users_mode;
  bool operator==(const AuthStatus&) const = default;

  // Programs without a signed-in user get working credentials: a mode other than none, and no
  // problem.
  bool usable() const { return !mode.empty() && mode != "none" && problem.empty(); }
};

std::string encode_auth_status(const AuthStatus& status);

// Reads an answer parsed within json::kDaemonAnswerLimits; absent members stay empty. Throws
// MalformedMessage naming a member of the wrong type.
AuthStatus decode_auth_status(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
