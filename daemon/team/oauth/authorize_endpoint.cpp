// AuthorizationServer: the browser's part of a sign-in. /oauth/authorize checks the client's
// request and sends the user on to the upstream provider (with the daemon's own client_id,
// state, nonce and PKCE); /oauth/callback takes the provider's answer, verifies the ID token,
// applies the allowlist, seals the user's upstream tokens and sends the browser back to the
// client with a code of ours (RFC 6749 §4.1.2, with iss per RFC 9207).
#include <Poco/URI.h>

#include <algorithm>
#include <sstream>

#include "address_policy.hpp"
#include "authorization_server.hpp"
#include "browser_binding.hpp"
#include "oauth_replies.hpp"
#include "oauth_secrets.hpp"
#include "pending_authorization.hpp"
#include "pkce.hpp"
#include "token_sealer.hpp"
#include "upstream_oidc_client.hpp"
#include "url_form.hpp"
#include "user_allowlist.hpp"

namespace kg::team {
namespace {

constexpr std::int64_t kSignInSeconds = 600;  // from authorize to the provider's callback
constexpr std::int64_t kCodeSeconds = 60;

// RFC 8252 §7.3: a native client's loopback redirect may come back on any port.
bool same_redirect_uri(const std::string& registered, const std::string& given) {
  if (registered == given) return true;
  try {
    const Poco::URI a(registered), b(given);
    return a.getScheme() == "http" && b.getScheme() == "http" &&
           net::is_loopback_host(a.getHost()) && a.getHost() == b.getHost() &&
           a.getPathEtc() == b.getPathEtc();
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

}  // namespace

HttpReply AuthorizationServer::authorize(const HttpExchange& request) {
  oauth::FormFields query;
  try {
    query = oauth::parse_form(request.query);
  } catch (const std::invalid_argument& e) {
    return oauth::page_reply(400, "Bad sign-in request", std::string("The request's query is malformed: ") + e.what() + ".");
  }
  const std::string& client_id = query.get("client_id");
  if (client_id.empty()) {
    return oauth::page_reply(400, "Bad sign-in request",
                             "The request names no client_id. Start the sign-in from your MCP client.");
  }
  std::optional<store::OAuthClientRecord> client;
  try {
    client = find_client(client_id);
  } catch (const oauth::UpstreamError& e) {
    return oauth::page_reply(400, "Unknown client", std::string("The client's metadata document could not be fetched: ") + e.what());
  }
  // A registration nobody started a sign-in with in its first minutes is gone, whether or not
  // a later registration has purged it yet (client_registration.cpp).
  if (client && client->created_at > 0 && client->last_used_at == 0 &&
      client->sign_in_started_at == 0 &&
      clock_() - client->created_at > settings_.unstarted_registration_ttl_s) {
    client.reset();
  }
  if (!client) {
    return oauth::page_reply(400, "Unknown client",
                             "This server does not know the client \"" + client_id +
                                 "\" (registrations do not survive a reset of its database). "
                                 "Remove the server from your MCP client and add it again, so the "
                                 "client registers anew.");
  }
  std::string redirect_uri = query.get("redirect_uri");
  if (redirect_uri.empty() && client->redirect_uris.size() == 1) redirect_uri = client->redirect_uris[0];
  const bool registered = std::any_of(client->redirect_uris.begin(), client->redirect_uris.end(),
                                      [&](const std::string& uri) { return same_redirect_uri(uri, redirect_uri); });
  if (redirect_uri.empty() || !registered) {
    // RFC 6749 §4.1.2.1: never redirect to an unregistered URI.
    return oauth::page_reply(400, "Bad redirect URI",
                             "The redirect_uri \"" + redirect_uri + "\" is not one the client \"" +
                                 client_id + "\" registered. Re-register the client.");
  }
  // From here on, errors go back to the client (RFC 6749 §4.1.2.1), with its state and our iss.
  const std::string& client_state = query.get("state");
  auto refuse = [&](const std::string& error, const std::string& description) {
    std::vector<std::pair<std::string, std::string>> fields = {{"error", error},
                                                               {"error_description", description}};
    if (!client_state.empty()) fields.emplace_back("state", client_state);
    fields.emplace_back("iss", settings_.public_url);
    return oauth::redirect_reply(oauth::with_query(redirect_uri, fields));
  };
  if (!query.repeated.empty()) {
    return refuse("invalid_request", "the parameter " + query.repeated.front() + " is given twice");
  }
  if (query.get("response_type") != "code") {
    return refuse("unsupported_response_type", "only response_type=code is supported");
  }
  if (query.get("code_challenge_method") != "S256" ||
      !oauth::is_valid_s256_challenge(query.get("code_challenge"))) {
    return refuse("invalid_request",
                  "PKCE is required: send code_challenge (43 base64url characters) with "
                  "code_challenge_method=S256 (plain is not accepted)");
  }
  std::string resource = query.get("resource");
  while (!resource.empty() && resource.back() == '/') resource.pop_back();
  // A client that names no resource (RFC 8707 is newer than some clients) gets the MCP endpoint.
  if (resource.empty()) resource = this->resource();
  if (resource != this->resource() && resource != settings_.public_url) {
    return refuse("invalid_target", "resource must be " + this->resource() + " (this server's MCP "
                  "endpoint), not " + resource);
  }
  const std::vector<std::string> scopes = words(query.get("scope"));
  for (const auto& scope : scopes) {
    if (scope != "mcp") return refuse("invalid_scope", "the only scope is \"mcp\", not \"" + scope + "\"");
  }

  // The client is in use: its registration outlives the short wait of unstarted ones.
  if (client->created_at > 0) store_.mark_oauth_client_sign_in_started(client_id, clock_());

  oauth::PendingAuthorization pending;
  pending.client_id = client_id;
  pending.redirect_uri = redirect_uri;
  pending.requested_redirect_uri = query.get("redirect_uri");
  pending.code_challenge = query.get("code_challenge");
  pending.client_state = client_state;
  pending.resource = resource;
  pending.scope = "mcp";
  pending.upstream_verifier = oauth::random_secret(32);
  pending.nonce = oauth::random_secret(16);
  pending.expires_at = clock_() + kSignInSeconds;
  const std::string upstream_state = oauth::random_secret(24);
  oauth::UpstreamAuthorizationRequest upstream_request{
      settings_.public_url + "/oauth/callback", upstream_state, pending.nonce,
      oauth::s256_challenge(pending.upstream_verifier), settings_.scopes, query.get("login_hint")};
  std::string location;
  try {
    location = upstream_->authorization_url(upstream_request);
  } catch (const oauth::UpstreamError& e) {
    logger_.log(plugin::LogLevel::error, std::string("oauth: ") + e.what());
    return refuse("temporarily_unavailable",
                  "the identity provider cannot be reached; try again later (" + std::string(e.what()) + ")");
  }
  const std::string browser_secret = oauth::random_secret(32);
  pending.browser_binding = oauth::sha256_hex(browser_secret);
  remember(upstream_state, std::move(pending));
  HttpReply reply = oauth::redirect_reply(location);
  reply.headers.emplace_back("Set-Cookie", oauth::signin_cookie(browser_secret, settings_.public_url));
  return reply;
}

HttpReply AuthorizationServer::callback(const HttpExchange& request) {
  const oauth::FormFields query = oauth::parse_form(request.query);
  std::optional<oauth::PendingAuthorization> pending = take_pending(query.get("state"));
  if (!pending) {
    return oauth::page_reply(400, "Sign-in expired",
                             "This sign-in is unknown or took longer than 10 minutes. Start it "
                             "again from your MCP client.");
  }
  if (oauth::sha256_hex(oauth::signin_cookie_value(request)) != pending->browser_binding) {
    logger_.log(plugin::LogLevel::warn, "oauth: a sign-in came back to another browser; refused");
    return oauth::page_reply(400, "Sign-in started elsewhere",
                             "This sign-in was started in another browser (or this browser blocks "
                             "cookies). Start it again from your MCP client on this machine.");
  }
  auto back_to_client = [&](std::vector<std::pair<std::string, std::string>> fields) {
    if (!pending->client_state.empty()) fields.emplace_back("state", pending->client_state);
    fields.emplace_back("iss", settings_.public_url);
    return oauth::redirect_reply(oauth::with_query(pending->redirect_uri, fields));
  };
  if (query.has("error")) {
    const bool denied = query.get("error") == "access_denied";
    return back_to_client({{"error", denied ? "access_denied" : "server_error"},
                           {"error_description", "the identity provider answered " +
                                                     query.get("error") + ": " +
                                                     query.get("error_description")}});
  }
  const std::int64_t now = clock_();
  oauth::UpstreamTokens tokens;
  oauth::IdTokenClaims claims;
  try {
    tokens = upstream_->exchange_code(query.get("code"), pending->upstream_verifier,
                                      settings_.public_url + "/oauth/callback");
    if (tokens.id_token.empty()) throw oauth::IdTokenError("the provider sent no ID token (is openid in [oauth] scopes?)");
    claims = upstream_->verify_id_token(tokens.id_token, pending->nonce, now);
  } catch (const std::runtime_error& e) {  // UpstreamError, IdTokenError
    logger_.log(plugin::LogLevel::warn, std::string("oauth: a sign-in failed: ") + e.what());
    return back_to_client({{"error", "access_denied"},
                           {"error_description", std::string("the sign-in could not be completed: ") + e.what()}});
  }
  if (const std::string refusal = allowlist_->refusal(
          claims.email, claims.email_verified.value_or(false));
      !refusal.empty()) {
    logger_.log(plugin::LogLevel::warn,
                "oauth: refused sign-in of " + (claims.email.empty() ? claims.subject : claims.email));
    return oauth::page_reply(403, "Not allowed", refusal);
  }

  store::OAuthUserRecord user;
  user.user_id = claims.issuer + "#" + claims.subject;
  user.email = claims.email;
  if (!tokens.refresh_token.empty()) {
    user.sealed_refresh_token = sealer_->seal(tokens.refresh_token, user.user_id + " refresh");
  }
  user.sealed_access_token = sealer_->seal(tokens.access_token, user.user_id + " access");
  user.access_token_expires = now + (tokens.expires_in_s > 0 ? tokens.expires_in_s : 3600);
  user.scopes = tokens.scope;
  user.updated_at = now;
  store_.save_oauth_user(user);
  return ask_consent(std::move(*pending), user.user_id, user.email);
}

HttpReply AuthorizationServer::issue_code(const oauth::PendingAuthorization& authorization,
                                          const std::string& user_id, const std::string& email) {
  const oauth::PendingAuthorization* pending = &authorization;
  const std::int64_t now = clock_();
  auto back_to_client = [&](std::vector<std::pair<std::string, std::string>> fields) {
    if (!pending->client_state.empty()) fields.emplace_back("state", pending->client_state);
    fields.emplace_back("iss", settings_.public_url);
    return oauth::redirect_reply(oauth::with_query(pending->redirect_uri, fields));
  };
  const std::string code = oauth::random_secret(32);
  store::OAuthCodeRecord record;
  record.code_hash = oauth::sha256_hex(code);
  record.client_id = pending->client_id;
  record.redirect_uri = pending->requested_redirect_uri;
  record.code_challenge = pending->code_challenge;
  record.resource = pending->resource;
  record.scope = pending->scope;
  record.user_id = user_id;
  record.family_id = oauth::random_secret(16);
  record.expires_at = now + kCodeSeconds;
  store_.insert_oauth_code(record);
  store_.mark_oauth_client_used(record.client_id, now);  // a registration in use is kept
  logger_.log(plugin::LogLevel::info, "oauth: " + email + " signed in (client " + pending->client_id + ")");
  return back_to_client({{"code", code}});
}

}  // namespace kg::team
