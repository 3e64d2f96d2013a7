// PKCE S256 (RFC 7636) and the secrets beneath it: SHA-256, random secrets.
#include <doctest/doctest.h>

#include <set>

#include "base64url.hpp"
#include "oauth_secrets.hpp"
#include "pkce.hpp"

using namespace kg::team::oauth;

TEST_CASE("PKCE S256 matches RFC 7636's example and refuses everything else") {
  const std::string verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const std::string challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
  CHECK(s256_challenge(verifier) == challenge);
  CHECK(verify_s256(verifier, challenge));
  CHECK(is_valid_s256_challenge(challenge));
  // One character off in either.
  CHECK_FALSE(verify_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl", challenge));
  CHECK_FALSE(verify_s256(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"));
  // plain PKCE (the challenge is the verifier) is not S256.
  CHECK_FALSE(verify_s256(verifier, verifier));
  CHECK_FALSE(is_valid_s256_challenge(verifier + "x"));
  CHECK_FALSE(is_valid_s256_challenge("too-short"));
}

TEST_CASE("a code_verifier is 43-128 unreserved characters") {
  CHECK(is_valid_code_verifier(std::string(43, 'a')));
  CHECK(is_valid_code_verifier(std::string(128, '~')));
  CHECK_FALSE(is_valid_code_verifier(std::string(42, 'a')));
  CHECK_FALSE(is_valid_code_verifier(std::string(129, 'a')));
  CHECK_FALSE(is_valid_code_verifier(std::string(42, 'a') + "+"));
  CHECK_FALSE(is_valid_code_verifier(std::string(42, 'a') + "="));
  // A short verifier never verifies, even against its own challenge.
  CHECK_FALSE(verify_s256("short", s256_challenge("short")));
}

// base64url itself is lib/codec's (tests/unit/codec/test_base64url.cpp).

TEST_CASE("secrets are 256-bit, distinct, and stored as SHA-256 hex") {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string secret = random_secret(32);
    CHECK(secret.size() == 43);
    CHECK(kg::codec::base64url_decode(secret)->size() == 32);
    seen.insert(secret);
  }
  CHECK(seen.size() == 100);
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(constant_time_equals("same", "same"));
  CHECK_FALSE(constant_time_equals("same", "sane"));
  CHECK_FALSE(constant_time_equals("same", "same "));
}
