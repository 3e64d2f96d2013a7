// AuthorizationServer: POST /oauth/token. Redeems our authorization codes (single use, PKCE S256,
// the same client and redirect_uri; a replay revokes every token the code issued) and rotates
// refresh tokens (each is good once; presenting a used one revokes its whole family, since one
// of the two presenters is a thief). Errors per RFC 6749 §5.2.
#include "authorization_server.hpp"
#include "oauth_replies.hpp"
#include "oauth_secrets.hpp"
#include "pkce.hpp"
#include "url_form.hpp"
#include "user_allowlist.hpp"

namespace kg::team {
namespace {

HttpReply invalid_grant(const std::string& description) {
  return oauth::oauth_error(400, "invalid_grant", description);
}

std::string trimmed_resource(std::string resource) {
  while (!resource.empty() && resource.back() == '/') resource.pop_back();
  return resource;
}

}  // namespace

HttpReply AuthorizationServer::token(const HttpExchange& request) {
  const auto type = request.headers.find("content-type");
  if (type == request.headers.end() ||
      type->second.find("application/x-www-form-urlencoded") == std::string::npos) {
    return oauth::oauth_error(400, "invalid_request",
                              "The token request must be application/x-www-form-urlencoded.");
  }
  oauth::FormFields form;
  try {
    form = oauth::parse_form(request.body);
  } catch (const std::invalid_argument& e) {
    return oauth::oauth_error(400, "invalid_request", std::string("The body is malformed: ") + e.what() + ".");
  }
  if (!form.repeated.empty()) {
    return oauth::oauth_error(400, "invalid_request", "The parameter " + form.repeated.front() + " is given twice.");
  }
  if (request.headers.count("authorization") != 0) {
    return oauth::oauth_error(401, "invalid_client",
                              "This server's clients are public (token_endpoint_auth_method none): "
                              "send client_id in the body and no Authorization header.");
  }
  if (form.get("client_id").empty()) {
    return oauth::oauth_error(400, "invalid_request", "The request names no client_id.");
  }
  const std::string& grant = form.get("grant_type");
  if (grant == "authorization_code") return redeem_code(form);
  if (grant == "refresh_token") return rotate_refresh_token(form);
  return oauth::oauth_error(400, "unsupported_grant_type",
                            "grant_type must be authorization_code or refresh_token, not \"" + grant + "\".");
}

HttpReply AuthorizationServer::redeem_code(const oauth::FormFields& form) {
  const std::string& code = form.get("code");
  if (code.empty()) return oauth::oauth_error(400, "invalid_request", "The request names no code.");
  const auto record = store_.redeem_oauth_code(oauth::sha256_hex(code));
  if (!record) return invalid_grant("The authorization code is unknown; sign in again.");
  if (record->redeemed) {
    const std::int64_t revoked = store_.revoke_oauth_family(record->family_id);
    logger_.log(plugin::LogLevel::warn,
                "oauth: an authorization code was presented twice; revoked the " +
                    std::to_string(revoked) + " tokens it had issued (client " + record->client_id + ")");
    return invalid_grant("The authorization code was already used; the tokens it issued are revoked. Sign in again.");
  }
  if (record->expires_at < clock_()) {
    return invalid_grant("The authorization code expired (codes live 60 seconds); sign in again.");
  }
  if (record->client_id != form.get("client_id")) {
    return invalid_grant("The authorization code was issued to another client.");
  }
  // RFC 6749 §4.1.3: the same redirect_uri as at authorize, if that named one.
  if (!record->redirect_uri.empty() && record->redirect_uri != form.get("redirect_uri")) {
    return invalid_grant("redirect_uri does not match the one of the authorization request.");
  }
  if (!oauth::verify_s256(form.get("code_verifier"), record->code_challenge)) {
    return invalid_grant("code_verifier does not match the code_challenge of the authorization request (PKCE S256).");
  }
  if (form.has("resource") && trimmed_resource(form.get("resource")) != record->resource) {
    return oauth::oauth_error(400, "invalid_target",
                              "resource must be " + record->resource + ", as at authorization.");
  }
  return issue_tokens(record->family_id, record->user_id, record->client_id, record->resource,
                      record->scope);
}

HttpReply AuthorizationServer::rotate_refresh_token(const oauth::FormFields& form) {
  const std::string& presented = form.get("refresh_token");
  if (presented.empty()) {
    return oauth::oauth_error(400, "invalid_request", "The request names no refresh_token.");
  }
  const auto record = store_.consume_oauth_refresh_token(oauth::sha256_hex(presented));
  if (!record) return invalid_grant("The refresh token is unknown; sign in again.");
  if (record->state != "active" || record->client_id != form.get("client_id")) {
    const std::int64_t revoked = store_.revoke_oauth_family(record->family_id);
    logger_.log(plugin::LogLevel::warn,
                "oauth: a refresh token was reused or presented by another client; revoked " +
                    std::to_string(revoked) + " tokens of its family (user " + record->user_id + ")");
    return invalid_grant("The refresh token was already used or revoked; every token of this "
                         "sign-in is now revoked. Sign in again.");
  }
  if (record->expires_at < clock_()) return invalid_grant("The refresh token expired; sign in again.");
  if (form.has("resource") && trimmed_resource(form.get("resource")) != record->resource) {
    return oauth::oauth_error(400, "invalid_target",
                              "resource must be " + record->resource + ", as at authorization.");
  }
  if (form.has("scope") && form.get("scope") != "mcp") {
    return oauth::oauth_error(400, "invalid_scope", "The only scope is \"mcp\".");
  }
  // Someone removed from the allowlist since signing in gets no new tokens.
  const auto user = store_.find_oauth_user(record->user_id);
  if (!user || !allowlist_->refusal(user->email, std::nullopt).empty()) {
    store_.revoke_oauth_family(record->family_id);
    return invalid_grant("This user is no longer allowed to use this server.");
  }
  return issue_tokens(record->family_id, record->user_id, record->client_id, record->resource,
                      record->scope);
}

HttpReply AuthorizationServer::issue_tokens(const std::string& family_id, const std::string& user_id,
                                            const std::string& client_id, const std::string& resource,
                                            const std::string& scope) {
  const std::int64_t now = clock_();
  const std::string access_token = oauth::random_secret(32);  // 256 bits
  const std::string refresh_token = oauth::random_secret(32);
  store::OAuthTokenRecord access{oauth::sha256_hex(access_token), "access", family_id, user_id,
                                 client_id, resource, scope, now + settings_.access_token_ttl_s,
                                 "active"};
  store::OAuthTokenRecord refresh{oauth::sha256_hex(refresh_token), "refresh", family_id, user_id,
                                  client_id, resource, scope, now + settings_.refresh_token_ttl_s,
                                  "active"};
  store_.insert_oauth_tokens({access, refresh});
  store_.purge_expired_oauth(now);

  rapidjson::Document answer(rapidjson::kObjectType);
  auto& allocator = answer.GetAllocator();
  answer.AddMember("access_token", rapidjson::Value(access_token.c_str(), allocator), allocator);
  answer.AddMember("token_type", "Bearer", allocator);
  answer.AddMember("expires_in", settings_.access_token_ttl_s, allocator);
  answer.AddMember("refresh_token", rapidjson::Value(refresh_token.c_str(), allocator), allocator);
  answer.AddMember("scope", rapidjson::Value(scope.c_str(), allocator), allocator);
  HttpReply reply = oauth::json_reply(200, answer);
  reply.headers = {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}};
  return reply;
}

}  // namespace kg::team
