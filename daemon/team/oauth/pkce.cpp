#include "pkce.hpp"

#include "base64url.hpp"
#include "oauth_secrets.hpp"

namespace kg::team::oauth {
namespace {

bool is_unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

bool is_valid_code_verifier(std::string_view verifier) {
  if (verifier.size() < 43 || verifier.size() > 128) return false;
  for (const char c : verifier) {
    if (!is_unreserved(c)) return false;
  }
  return true;
}

bool is_valid_s256_challenge(std::string_view challenge) {
  const auto decoded = codec::base64url_decode(challenge);
  return challenge.size() == 43 && decoded && decoded->size() == 32;
}

std::string s256_challenge(std::string_view verifier) {
  return codec::base64url_encode(sha256(verifier));
}

bool verify_s256(std::string_view verifier, std::string_view challenge) {
  return is_valid_code_verifier(verifier) && constant_time_equals(s256_challenge(verifier), challenge);
}

}  // namespace kg::team::oauth
