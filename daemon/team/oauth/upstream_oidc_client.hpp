// The daemon as a client of the upstream OpenID Connect provider (Google, or any issuer with
// discovery): where its endpoints are (discovery at <issuer>/.well-known/openid-configuration,
// fetched once and kept), the authorization URL a user is sent to, the code exchange and token
// refresh (with the daemon's client secret when configured), and the ID token check against the
// provider's JWKS (fetched per sign-in, so a key rotation never locks users out).
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "id_token_verifier.hpp"
#include "upstream_http.hpp"

namespace kg::team::oauth {

struct ProviderEndpoints {
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string jwks_uri;
};

struct UpstreamTokens {
  std::string access_token;
  std::string refresh_token;  // "" when the provider sent none
  std::string id_token;       // "" on most refreshes
  std::string scope;
  std::int64_t expires_in_s = 0;
};

struct UpstreamAuthorizationRequest {
  std::string redirect_uri;  // <public_url>/oauth/callback
  std::string state;
  std::string nonce;
  std::string code_challenge;  // S256 of the daemon's own verifier
  std::vector<std::string> scopes;
  std::string login_hint;  // "" for none
};

class UpstreamOidcClient {
 public:
  UpstreamOidcClient(std::string issuer, std::string client_id, std::string client_secret_file);

  const std::string& issuer() const { return issuer_; }
  const std::string& client_id() const { return client_id_; }

  // Throws UpstreamError when discovery fails or its document is unusable.
  ProviderEndpoints endpoints();
  std::string authorization_url(const UpstreamAuthorizationRequest& request);
  // Throws UpstreamError with the provider's error and error_description.
  UpstreamTokens exchange_code(const std::string& code, const std::string& code_verifier,
                               const std::string& redirect_uri);
  UpstreamTokens refresh(const std::string& refresh_token);
  // Fetches the JWKS and checks the token. Throws UpstreamError or IdTokenError.
  IdTokenClaims verify_id_token(const std::string& id_token, const std::string& nonce,
                                std::int64_t now);

 private:
  UpstreamTokens token_request(std::vector<std::pair<std::string, std::string>> fields,
                               const std::string& what);
  std::string client_secret() const;

  std::string issuer_, client_id_, client_secret_file_;
  UpstreamHttp http_;
  std::mutex mutex_;
  std::optional<ProviderEndpoints> endpoints_;  // discovery, once it succeeded
};

}  // namespace kg::team::oauth
