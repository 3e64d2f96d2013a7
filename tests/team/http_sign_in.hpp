// A whole sign-in at a team daemon with [http] auth = oauth, over plain HTTP as a browser-less
// MCP client does it: registration, /oauth/authorize, the mock provider's redirect back,
// /oauth/callback, the consent form, and the token exchange with PKCE. For team tests that need
// a signed-in user without a Node client (test_team_limits.cpp).
#pragma once

#include <string>

#include "http_probe.hpp"

namespace kg::test {

inline constexpr const char* kSignInRedirect = "http://127.0.0.1:33418/callback";

// POST /oauth/register from 127.0.0.1; the client_id (REQUIREs 201).
std::string register_http_client(const HttpProbe& daemon, const std::string& name);

// GET /oauth/authorize's query for the client, with a PKCE challenge of `verifier`.
std::string authorize_query(const std::string& daemon_url, const std::string& client_id,
                            const std::string& verifier, const std::string& login_hint);

// Signs `login_hint` in through a new client; the access token.
std::string sign_in_over_http(const HttpProbe& daemon, const std::string& daemon_url,
                              const std::string& login_hint);

}  // namespace kg::test
