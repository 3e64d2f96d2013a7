// verify_id_token: RS256 against a JWKS built from a real RSA key, and each claim check
// (iss, aud, azp, exp, nonce), the algorithm and the key choice.
#include <Poco/Crypto/RSAKey.h>
#include <Poco/JWT/Signer.h>
#include <Poco/JWT/Token.h>
#include <doctest/doctest.h>

#include "base64url.hpp"
#include "id_token_verifier.hpp"
#include "oauth_secrets.hpp"

using namespace kg::team::oauth;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;

Poco::SharedPtr<Poco::Crypto::RSAKey> new_key() {
  return new Poco::Crypto::RSAKey(Poco::Crypto::RSAKey::KL_2048, Poco::Crypto::RSAKey::EXP_LARGE);
}

std::string jwk_of(const Poco::Crypto::RSAKey& key, const std::string& kid) {
  const auto n = key.modulus();
  const auto e = key.encryptionExponent();
  return R"({"kty":"RSA","use":"sig","alg":"RS256","kid":")" + kid + R"(","n":")" +
         kg::codec::base64url_encode(std::string(n.begin(), n.end())) + R"(","e":")" +
         kg::codec::base64url_encode(std::string(e.begin(), e.end())) + R"("})";
}

struct Claims {
  std::string iss = "https://issuer.example", aud = "daemon-client", nonce = "n-123",
              sub = "subject-1", email = "alice@example.com", azp, kid = "k1";
  std::int64_t exp = kNow + 3600;
  bool with_verified = true, verified = true;
};

std::string sign(const Poco::SharedPtr<Poco::Crypto::RSAKey>& key, const Claims& claims,
                 const std::string& algorithm = Poco::JWT::Signer::ALGO_RS256) {
  Poco::JWT::Token token;
  token.setIssuer(claims.iss);
  token.setAudience(claims.aud);
  token.setSubject(claims.sub);
  token.setExpiration(Poco::Timestamp::fromEpochTime(static_cast<std::time_t>(claims.exp)));
  token.payload().set("nonce", claims.nonce);
  token.payload().set("email", claims.email);
  if (claims.with_verified) token.payload().set("email_verified", claims.verified);
  if (!claims.azp.empty()) token.payload().set("azp", claims.azp);
  if (!claims.kid.empty()) token.header().set("kid", claims.kid);
  if (algorithm == Poco::JWT::Signer::ALGO_HS256) {
    return Poco::JWT::Signer("hmac-secret").sign(token, algorithm);
  }
  return Poco::JWT::Signer(key).sign(token, algorithm);
}

const IdTokenExpectations kExpected{"https://issuer.example", "daemon-client", "n-123", kNow, 60};

}  // namespace

TEST_CASE("an RS256 ID token signed by a JWKS key verifies, and its claims come out") {
  const auto key = new_key();
  const auto other = new_key();
  const std::string jwks = R"({"keys":[)" + jwk_of(*other, "k0") + "," + jwk_of(*key, "k1") + "]}";
  const IdTokenClaims claims = verify_id_token(sign(key, {}), jwks, kExpected);
  CHECK(claims.issuer == "https://issuer.example");
  CHECK(claims.subject == "subject-1");
  CHECK(claims.email == "alice@example.com");
  REQUIRE(claims.email_verified.has_value());
  CHECK(*claims.email_verified);

  Claims unverified;
  unverified.verified = false;
  CHECK(verify_id_token(sign(key, unverified), jwks, kExpected).email_verified == false);
  Claims silent;
  silent.with_verified = false;
  CHECK_FALSE(verify_id_token(sign(key, silent), jwks, kExpected).email_verified.has_value());
  // Without a kid, the only RSA key is the one.
  Claims no_kid;
  no_kid.kid.clear();
  CHECK_NOTHROW(verify_id_token(sign(key, no_kid), R"({"keys":[)" + jwk_of(*key, "k1") + "]}", kExpected));
}

TEST_CASE("an ID token failing any check is refused with the reason") {
  const auto key = new_key();
  const std::string jwks = R"({"keys":[)" + jwk_of(*key, "k1") + "]}";
  auto refused = [&](const Claims& claims, const char* reason) {
    CAPTURE(reason);
    CHECK_THROWS_WITH_AS(verify_id_token(sign(key, claims), jwks, kExpected),
                         doctest::Contains(reason), IdTokenError);
  };
  Claims c;
  c.iss = "https://evil.example";
  refused(c, "issuer");
  c = {};
  c.aud = "another-client";
  refused(c, "client_id");
  c = {};
  c.azp = "another-client";
  refused(c, "azp");
  c = {};
  c.exp = kNow - 61;
  refused(c, "expired");
  c = {};
  c.nonce = "n-456";
  refused(c, "nonce");
  c = {};
  c.kid = "k9";
  refused(c, "kid \"k9\"");
  c = {};
  c.exp = kNow - 30;  // within the clock skew allowance
  CHECK_NOTHROW(verify_id_token(sign(key, c), jwks, kExpected));

  // Signed by a key the JWKS does not hold under that kid.
  const auto stranger = new_key();
  CHECK_THROWS_WITH(verify_id_token(sign(stranger, {}), jwks, kExpected), doctest::Contains("signature"));
  // Another algorithm, even one whose secret an attacker might guess.
  CHECK_THROWS_WITH(verify_id_token(sign(key, {}, Poco::JWT::Signer::ALGO_HS256), jwks, kExpected),
                    doctest::Contains("only RS256"));
  // A payload changed after signing.
  std::string token = sign(key, {});
  const auto first_dot = token.find('.'), second_dot = token.find('.', first_dot + 1);
  Claims evil;
  evil.email = "mallory@example.com";
  const std::string evil_token = sign(stranger, evil);
  const auto evil_first = evil_token.find('.'), evil_second = evil_token.find('.', evil_first + 1);
  token.replace(first_dot + 1, second_dot - first_dot - 1,
                evil_token.substr(evil_first + 1, evil_second - evil_first - 1));
  CHECK_THROWS_WITH(verify_id_token(token, jwks, kExpected), doctest::Contains("signature"));
  CHECK_THROWS_AS(verify_id_token("not-a-jwt", jwks, kExpected), IdTokenError);
  CHECK_THROWS_WITH(verify_id_token(sign(key, {}), "{}", kExpected), doctest::Contains("keys"));
}
