// Verifies the upstream provider's ID token (OpenID Connect Core §3.1.3.7): an RS256 signature
// by a key of the provider's JWKS (OpenSSL, with a key built from the JWK's n and e; the payload
// is read, through lib/json, only once the signature verifies), iss = the configured issuer, aud holding our client_id (and azp, when present, equal to
// it), not expired, and the nonce we sent. Pure: the caller fetches the JWKS.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace kg::team::oauth {

class IdTokenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct IdTokenClaims {
  std::string issuer;
  std::string subject;
  std::string email;                   // "" when the token has none
  std::optional<bool> email_verified;  // nullopt when the claim is absent
  std::int64_t expires_at = 0;
};

struct IdTokenExpectations {
  std::string issuer;
  std::string client_id;
  std::string nonce;
  std::int64_t now = 0;  // Unix seconds
  std::int64_t allowed_clock_skew_s = 60;
};

// Throws IdTokenError saying which check failed (never the token itself).
IdTokenClaims verify_id_token(const std::string& id_token, const std::string& jwks_json,
                              const IdTokenExpectations& expected);

}  // namespace kg::team::oauth
