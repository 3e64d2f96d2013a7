// The small cryptographic pieces every part of the authorization server uses, on OpenSSL:
// unguessable random strings (our tokens, codes, states, PKCE verifiers), SHA-256 (tokens and
// codes are stored only as their hash), in base64url (lib/codec/base64url.hpp). Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kg::team::oauth {

// `bytes` random bytes from OpenSSL's CSPRNG, base64url-encoded. Throws std::runtime_error when
// the generator fails (never falls back to a weaker one).
std::string random_secret(std::size_t bytes = 32);

std::string sha256(std::string_view data);      // the 32 raw bytes
std::string sha256_hex(std::string_view data);  // lowercase hex: how tokens are stored

// Compares in time independent of where the strings differ.
bool constant_time_equals(std::string_view a, std::string_view b);

}  // namespace kg::team::oauth
