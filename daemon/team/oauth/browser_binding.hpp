// The cookie that ties a sign-in to the browser that started it: set by /oauth/authorize,
// required by /oauth/callback and /oauth/consent (HttpOnly, SameSite=Lax, Secure on https, path
// /oauth, ten minutes). Only its SHA-256 is kept on the server.
#pragma once

#include <string>

#include "http_exchange.hpp"

namespace kg::team::oauth {

inline constexpr const char* kSignInCookie = "kg_oauth_signin";

// The Set-Cookie value carrying `secret`.
std::string signin_cookie(const std::string& secret, const std::string& public_url);
// The secret the request's Cookie header carries; empty when none.
std::string signin_cookie_value(const HttpExchange& request);

}  // namespace kg::team::oauth
