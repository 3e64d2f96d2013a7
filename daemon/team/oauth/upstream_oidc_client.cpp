#include "upstream_oidc_client.hpp"

#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "form_encoding.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"
#include "url_form.hpp"

namespace kg::team::oauth {
namespace {

rapidjson::Document parse_object(const std::string& body, const std::string& what) {
  json::ReadJson read = json::read_json(body, json::kUpstreamReplyLimits);
  if (read.refused) throw UpstreamError(what + ": the provider's answer " + read.refused->describe());
  if (!read.document.IsObject()) {
    throw UpstreamError(what + ": the provider's answer is not a JSON object");
  }
  return std::move(read.document);
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

UpstreamOidcClient::UpstreamOidcClient(std::string issuer, std::string client_id,
                                       std::string client_secret_file)
    : issuer_(std::move(issuer)),
      client_id_(std::move(client_id)),
      client_secret_file_(std::move(client_secret_file)) {
  while (!issuer_.empty() && issuer_.back() == '/') issuer_.pop_back();
}

ProviderEndpoints UpstreamOidcClient::endpoints() {
  std::lock_guard lock(mutex_);
  if (endpoints_) return *endpoints_;
  const std::string what = "Discovering the OpenID provider " + issuer_;
  const UpstreamAnswer answer = http_.get(issuer_ + "/.well-known/openid-configuration", what);
  if (answer.status != 200) {
    throw UpstreamError(what + ": its discovery document answered HTTP " +
                        std::to_string(answer.status) + "; check [oauth] issuer");
  }
  const rapidjson::Document document = parse_object(answer.body, what);
  std::string named_issuer = json::string_member(document, "issuer");
  while (!named_issuer.empty() && named_issuer.back() == '/') named_issuer.pop_back();
  if (named_issuer != issuer_) {
    throw UpstreamError(what + ": its discovery document names issuer \"" + named_issuer +
                        "\"; set [oauth] issuer to exactly that");
  }
  ProviderEndpoints found{json::string_member(document, "authorization_endpoint"),
                          json::string_member(document, "token_endpoint"),
                          json::string_member(document, "jwks_uri")};
  if (found.authorization_endpoint.empty() || found.token_endpoint.empty() || found.jwks_uri.empty()) {
    throw UpstreamError(what + ": its discovery document lacks authorization_endpoint, "
                        "token_endpoint or jwks_uri");
  }
  endpoints_ = found;
  return found;
}

std::string UpstreamOidcClient::authorization_url(const UpstreamAuthorizationRequest& request) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"response_type", "code"},
      {"client_id", client_id_},
      {"redirect_uri", request.redirect_uri},
      {"scope", join(request.scopes)},
      {"state", request.state},
      {"nonce", request.nonce},
      {"code_challenge", request.code_challenge},
      {"code_challenge_method", "S256"},
      // Google sends a refresh token only with both.
      {"access_type", "offline"},
      {"prompt", "consent"},
  };
  if (!request.login_hint.empty()) fields.emplace_back("login_hint", request.login_hint);
  return with_query(endpoints().authorization_endpoint, fields);
}

std::string UpstreamOidcClient::client_secret() const {
  if (client_secret_file_.empty()) return "";
  std::ifstream file(client_secret_file_);
  if (!file) {
    throw UpstreamError("Cannot read [oauth] client_secret_file " + client_secret_file_);
  }
  std::stringstream text;
  text << file.rdbuf();
  std::string secret = text.str();
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ')) {
    secret.pop_back();
  }
  return secret;
}

UpstreamTokens UpstreamOidcClient::token_request(
    std::vector<std::pair<std::string, std::string>> fields, const std::string& what) {
  fields.emplace_back("client_id", client_id_);
  const std::string secret = client_secret();
  if (!secret.empty()) fields.emplace_back("client_secret", secret);
  const UpstreamAnswer answer =
      http_.post_form(endpoints().token_endpoint, net::form_encode(fields), what);
  const rapidjson::Document document =
      json::read_json(answer.body, json::kUpstreamReplyLimits).document;
  const bool is_object = document.IsObject();
  if (answer.status != 200) {
    const std::string error = is_object ? json::string_member(document, "error") : "";
    const std::string description =
        is_object ? json::string_member(document, "error_description") : "";
    throw UpstreamError(what + ": the provider's token endpoint answered HTTP " +
                        std::to_string(answer.status) +
                        (error.empty() ? "" : " " + error) +
                        (description.empty() ? "" : " (" + description + ")"));
  }
  if (!is_object) throw UpstreamError(what + ": the provider's token answer is not a JSON object");
  UpstreamTokens tokens;
  tokens.access_token = json::string_member(document, "access_token");
  tokens.refresh_token = json::string_member(document, "refresh_token");
  tokens.id_token = json::string_member(document, "id_token");
  tokens.scope = json::string_member(document, "scope");
  const auto expires = document.FindMember("expires_in");
  if (expires != document.MemberEnd() && expires->value.IsNumber()) {
    tokens.expires_in_s = static_cast<std::int64_t>(expires->value.GetDouble());
  } else if (expires != document.MemberEnd() && expires->value.IsString()) {
    tokens.expires_in_s = std::atoll(expires->value.GetString());
  }
  if (tokens.access_token.empty()) throw UpstreamError(what + ": the provider sent no access_token");
  return tokens;
}

UpstreamTokens UpstreamOidcClient::exchange_code(const std::string& code,
                                                 const std::string& code_verifier,
                                                 const std::string& redirect_uri) {
  return token_request({{"grant_type", "authorization_code"},
                        {"code", code},
                        {"code_verifier", code_verifier},
                        {"redirect_uri", redirect_uri}},
                       "Exchanging the sign-in code with " + issuer_);
}

UpstreamTokens UpstreamOidcClient::refresh(const std::string& refresh_token) {
  return token_request({{"grant_type", "refresh_token"}, {"refresh_token", refresh_token}},
                       "Refreshing a user's token at " + issuer_);
}

IdTokenClaims UpstreamOidcClient::verify_id_token(const std::string& id_token,
                                                  const std::string& nonce, std::int64_t now) {
  const std::string what = "Fetching the signing keys of " + issuer_;
  const UpstreamAnswer jwks = http_.get(endpoints().jwks_uri, what);
  if (jwks.status != 200) {
    throw UpstreamError(what + ": its JWKS answered HTTP " + std::to_string(jwks.status));
  }
  return oauth::verify_id_token(id_token, jwks.body,
                                IdTokenExpectations{issuer_, client_id_, nonce, now, 60});
}

}  // namespace kg::team::oauth
