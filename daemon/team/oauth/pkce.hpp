// PKCE (RFC 7636) with S256 only: the check of a client's code_verifier at /oauth/token, and
// the pair the daemon itself sends to the upstream provider. Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kg::team::oauth {

// RFC 7636 §4.1: 43-128 characters of [A-Z a-z 0-9 - . _ ~].
bool is_valid_code_verifier(std::string_view verifier);
// §4.2: a challenge is BASE64URL(SHA256(verifier)), 43 characters.
bool is_valid_s256_challenge(std::string_view challenge);
std::string s256_challenge(std::string_view verifier);
// True when `verifier` is well formed and hashes to `challenge`.
bool verify_s256(std::string_view verifier, std::string_view challenge);

}  // namespace kg::team::oauth
