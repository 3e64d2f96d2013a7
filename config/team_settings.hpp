// What the [http], [oauth] and [team] keys mean together: the checks no single key can make
// (TLS needs both files; auth = none and plain HTTP only where nobody else can connect; oauth
// needs a client), and the URL the daemon is reached at. Used by the config loader (so `config
// check` reports them) and by the daemon after `--http` has set the address.
#pragma once

#include <string>
#include <vector>

#include "daemon_config.hpp"

namespace kg::config {

// Errors and warnings for `config` read from `file`; none when [http] listen is empty.
std::vector<ConfigIssue> team_settings_issues(const DaemonConfig& config, const std::string& file);

// Sets [http] listen (`--http ADDR`) after the file was checked, and checks the team settings
// again with it. Throws ConfigError naming `--http ADDR` and each problem.
void apply_http_listen(DaemonConfig& config, const std::string& listen);

// Team mode with sign-in and [team] run_as = user: each owned session's calls carry its
// user's own Google token (in [team] user_token_mode).
bool runs_as_signed_in_users(const DaemonConfig& config);

// Whether a listen address's host is loopback (127.0.0.0/8, ::1, localhost).
bool is_loopback_listen(const std::string& listen);

// [oauth] issuer, else Google's.
std::string effective_issuer(const OAuthConfig& oauth);
// [oauth] scopes, else openid, email and cloud-platform.
std::vector<std::string> effective_scopes(const OAuthConfig& oauth);

// [http] public_url without a trailing '/', else http(s)://<listen> (https with TLS).
std::string effective_public_url(const HttpConfig& http);

}  // namespace kg::config
