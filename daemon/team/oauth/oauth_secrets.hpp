// The small cryptographic pieces every part of the authorization server uses, on OpenSSL:
// unguessable random strings (our tokens, codes, states, PKCE verifiers), SHA-256 (tokens and
// codes are stored only as their hash), base64url (RFC 4648 §5, no padding). Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kg::team::oauth {

std::string base64url_encode(std::string_view bytes);
// nullopt when `text` holds anything but base64url characters (padding '=' is accepted).
std::optional<std::string> base64url_decode(std::string_view text);

// `bytes` random bytes from OpenSSL's CSPRNG, base64url-encoded. Throws std::runtime_error when
// the generator fails (never falls back to a weaker one).
std::string random_secret(std::size_t bytes = 32);

std::string sha256(std::string_view data);      // the 32 raw bytes
std::string sha256_hex(std::string_view data);  // lowercase hex: how tokens are stored

// Compares in time independent of where the strings differ.
bool constant_time_equals(std::string_view a, std::string_view b);

}  // namespace kg::team::oauth
