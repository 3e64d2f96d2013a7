// AuthorizationServer::authenticate: the resource server's check of a request to /mcp
// (RFC 6750, with RFC 9728's resource_metadata so a client can find where to sign in). Only our
// own access tokens count: a token of the upstream provider is unknown here (no passthrough).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "authorization_server.hpp"
#include "oauth_secrets.hpp"
#include "user_allowlist.hpp"

namespace kg::team {
namespace {

bool has_scope(const std::string& scopes, const std::string& wanted) {
  std::istringstream in(scopes);
  for (std::string scope; in >> scope;) {
    if (scope == wanted) return true;
  }
  return false;
}

// RFC 6750 §3: quoted-string values; our descriptions hold no quotes or backslashes, but a
// description must never break the header.
std::string quoted(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '"' || c == '\\'; }),
             text.end());
  return "\"" + text + "\"";
}

}  // namespace

std::variant<SignedInUser, AuthFailure> AuthorizationServer::authenticate(const HttpExchange& request) {
  const std::string challenge = "Bearer resource_metadata=" +
                                quoted(settings_.public_url + "/.well-known/oauth-protected-resource/mcp") +
                                ", scope=\"mcp\"";
  auto invalid_token = [&](const std::string& description) {
    return AuthFailure{401, challenge + ", error=\"invalid_token\", error_description=" + quoted(description),
                       description};
  };
  const auto header = request.headers.find("authorization");
  if (header == request.headers.end()) {
    return AuthFailure{401, challenge,
                       "This server needs a sign-in: send Authorization: Bearer <access token> "
                       "(MCP clients find where to sign in from the WWW-Authenticate header)."};
  }
  const std::string& value = header->second;
  std::string scheme = value.substr(0, std::min<std::size_t>(value.size(), 7));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "bearer ") {
    return AuthFailure{401, challenge, "The Authorization header must be \"Bearer <access token>\"."};
  }
  std::string presented = value.substr(7);
  while (!presented.empty() && presented.front() == ' ') presented.erase(0, 1);
  while (!presented.empty() && presented.back() == ' ') presented.pop_back();
  if (presented.empty()) return invalid_token("the bearer token is empty");

  std::optional<store::OAuthTokenRecord> token;
  try {
    token = store_.find_oauth_token(oauth::sha256_hex(presented));
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::error, std::string("oauth: checking a token failed: ") + e.what());
    return AuthFailure{500, "", "The server could not check the token; try again."};
  }
  if (!token || token->kind != "access") {
    return invalid_token("the token is not an access token issued by this server (tokens of the "
                         "identity provider are not accepted); sign in again");
  }
  if (token->state == "revoked") return invalid_token("the token was revoked; sign in again");
  if (token->expires_at < clock_()) return invalid_token("the token expired; refresh it or sign in again");
  if (token->resource != resource() && token->resource != settings_.public_url) {
    return invalid_token("the token is for another resource (" + token->resource + "), not " + resource());
  }
  if (!has_scope(token->scope, "mcp")) {
    const std::string description = "the token lacks scope mcp";
    return AuthFailure{403,
                       "Bearer error=\"insufficient_scope\", scope=\"mcp\", resource_metadata=" +
                           quoted(settings_.public_url + "/.well-known/oauth-protected-resource/mcp") +
                           ", error_description=" + quoted(description),
                       description};
  }
  const auto user = store_.find_oauth_user(token->user_id);
  if (!user) return invalid_token("the token's user is unknown; sign in again");
  // An administrator's removal from the allowlist takes effect at once, not at token expiry.
  // The token is as good as revoked: 401, so a client signs in again and the user reads why not.
  if (const std::string refusal = allowlist_->refusal(user->email, std::nullopt); !refusal.empty()) {
    return invalid_token(refusal);
  }
  return SignedInUser{user->user_id, user->email};
}

}  // namespace kg::team
