#include "id_token_verifier.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "base64url.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"
#include "oauth_secrets.hpp"

namespace kg::team::oauth {
namespace {

// A JWT's three base64url parts (RFC 7519 §7.2): header, payload, signature.
struct JwtParts {
  std::string_view header, payload, signature;
  std::string_view signed_part;  // "header.payload", what the signature covers
};

JwtParts split_jwt(std::string_view token) {
  const auto first = token.find('.');
  const auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    throw IdTokenError("the ID token is not a JWT (it must have three parts separated by dots)");
  }
  return {token.substr(0, first), token.substr(first + 1, second - first - 1),
          token.substr(second + 1), token.substr(0, second)};
}

// One of the JWT's JSON parts, decoded and read like any JSON from outside (lib/json).
rapidjson::Document jwt_json(std::string_view part, const char* what) {
  const auto decoded = codec::base64url_decode(part);
  json::ReadJson read = decoded ? json::read_json(*decoded, json::kFileLimits) : json::ReadJson{};
  if (!decoded || read.refused || !read.document.IsObject()) {
    throw IdTokenError(std::string("the ID token is not a JWT (its ") + what +
                       " is not base64url JSON)");
  }
  return std::move(read.document);
}

using BigNum = std::unique_ptr<BIGNUM, decltype(&BN_free)>;

BigNum bignum_from_base64url(const std::string& text, const char* what) {
  const auto raw = codec::base64url_decode(text);
  if (!raw || raw->empty()) throw IdTokenError(std::string("a JWKS key has a bad ") + what);
  return BigNum(BN_bin2bn(reinterpret_cast<const unsigned char*>(raw->data()),
                          static_cast<int>(raw->size()), nullptr),
                &BN_free);
}

using PublicKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// An RSA public key from a JWK's modulus and exponent.
PublicKey rsa_key_from_jwk(const rapidjson::Value& jwk) {
  const BigNum n = bignum_from_base64url(json::string_member(jwk, "n"), "modulus (n)");
  const BigNum e = bignum_from_base64url(json::string_member(jwk, "e"), "exponent (e)");
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> build(OSSL_PARAM_BLD_new(),
                                                                       &OSSL_PARAM_BLD_free);
  if (!build || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1) {
    throw IdTokenError("OpenSSL could not build an RSA key from the JWKS");
  }
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(
      OSSL_PARAM_BLD_to_param(build.get()), &OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> context(
      EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr), &EVP_PKEY_CTX_free);
  EVP_PKEY* raw_key = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &raw_key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    throw IdTokenError("OpenSSL could not build an RSA key from the JWKS");
  }
  return PublicKey(raw_key, &EVP_PKEY_free);
}

// Whether `signature` is key's RSASSA-PKCS1-v1_5 SHA-256 signature of `data` (RS256, RFC 7518
// §3.3).
bool rs256_signature_verifies(EVP_PKEY* key, std::string_view data, std::string_view signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                   &EVP_MD_CTX_free);
  if (!context || EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key) != 1) {
    throw IdTokenError("OpenSSL could not set up an RS256 signature check");
  }
  return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                          data.size()) == 1;
}

const rapidjson::Value& signing_key(const rapidjson::Document& jwks, const std::string& kid) {
  if (!jwks.IsObject() || !jwks.HasMember("keys") || !jwks["keys"].IsArray()) {
    throw IdTokenError("the provider's JWKS has no \"keys\" array");
  }
  const rapidjson::Value* only_rsa = nullptr;
  int rsa_keys = 0;
  for (const auto& key : jwks["keys"].GetArray()) {
    if (json::string_member(key, "kty") != "RSA") continue;
    const std::string use = json::string_member(key, "use");
    if (!use.empty() && use != "sig") continue;
    if (!kid.empty() && json::string_member(key, "kid") == kid) return key;
    only_rsa = &key;
    ++rsa_keys;
  }
  if (kid.empty() && rsa_keys == 1) return *only_rsa;
  throw IdTokenError("no RSA signing key " + (kid.empty() ? std::string() : "with kid \"" + kid + "\" ") +
                     "in the provider's JWKS (the ID token names " +
                     (kid.empty() ? "no kid" : "kid \"" + kid + "\"") + ")");
}

// The audience: a string or an array of strings (RFC 7519 §4.1.3).
std::vector<std::string> audience_of(const rapidjson::Value& payload) {
  std::vector<std::string> audience;
  const auto found = payload.FindMember("aud");
  if (found == payload.MemberEnd()) return audience;
  if (found->value.IsString()) audience.emplace_back(found->value.GetString());
  if (found->value.IsArray()) {
    for (const auto& item : found->value.GetArray()) {
      if (item.IsString()) audience.emplace_back(item.GetString());
    }
  }
  return audience;
}

// A NumericDate claim (seconds since the epoch), or nullopt when absent or not a number.
std::optional<std::int64_t> numeric_date(const rapidjson::Value& payload, const char* name) {
  const auto found = payload.FindMember(name);
  if (found == payload.MemberEnd() || !found->value.IsNumber()) return std::nullopt;
  return static_cast<std::int64_t>(found->value.GetDouble());
}

void check_claims(const rapidjson::Value& payload, const IdTokenExpectations& expected) {
  const std::string issuer = json::string_member(payload, "iss");
  if (issuer != expected.issuer) {
    throw IdTokenError("the ID token's issuer \"" + issuer + "\" is not the configured "
                       "issuer \"" + expected.issuer + "\"");
  }
  const std::vector<std::string> audience = audience_of(payload);
  if (std::find(audience.begin(), audience.end(), expected.client_id) == audience.end()) {
    throw IdTokenError("the ID token is not for this daemon's client_id \"" + expected.client_id + "\"");
  }
  const std::string azp = json::string_member(payload, "azp");
  if (!azp.empty() && azp != expected.client_id) {
    throw IdTokenError("the ID token was issued to another party (azp \"" + azp + "\")");
  }
  const auto exp = numeric_date(payload, "exp");
  if (!exp) throw IdTokenError("the ID token has no expiry (exp)");
  if (*exp + expected.allowed_clock_skew_s < expected.now) {
    throw IdTokenError("the ID token has expired (is the host's clock right?)");
  }
  if (json::string_member(payload, "nonce") != expected.nonce || expected.nonce.empty()) {
    throw IdTokenError("the ID token's nonce does not match the sign-in it answers (a replayed "
                       "or mixed-up sign-in); start the sign-in again");
  }
  if (json::string_member(payload, "sub").empty())
    throw IdTokenError("the ID token names no subject (sub)");
}

}  // namespace

IdTokenClaims verify_id_token(const std::string& id_token, const std::string& jwks_json,
                              const IdTokenExpectations& expected) {
  const JwtParts parts = split_jwt(id_token);
  const rapidjson::Document header = jwt_json(parts.header, "header");
  if (json::string_member(header, "alg") != "RS256") {
    throw IdTokenError("the ID token is signed with \"" + json::string_member(header, "alg") +
                       "\"; only RS256 is accepted");
  }
  json::ReadJson jwks = json::read_json(jwks_json, json::kUpstreamReplyLimits);
  if (jwks.refused) throw IdTokenError("the provider's JWKS " + jwks.refused->describe());
  const PublicKey key =
      rsa_key_from_jwk(signing_key(jwks.document, json::string_member(header, "kid")));
  const auto signature = codec::base64url_decode(parts.signature);
  if (!signature || !rs256_signature_verifies(key.get(), parts.signed_part, *signature)) {
    throw IdTokenError("the ID token's signature does not verify against the provider's JWKS");
  }
  // Only a payload the provider signed is read.
  const rapidjson::Document payload = jwt_json(parts.payload, "payload");
  check_claims(payload, expected);
  IdTokenClaims claims;
  claims.issuer = json::string_member(payload, "iss");
  claims.subject = json::string_member(payload, "sub");
  claims.email = json::string_member(payload, "email");
  claims.expires_at = *numeric_date(payload, "exp");
  const auto verified = payload.FindMember("email_verified");
  if (verified != payload.MemberEnd()) {
    // Some providers send the string "true".
    claims.email_verified = verified->value.IsBool() ? verified->value.GetBool()
                            : verified->value.IsString() &&
                                  std::string_view(verified->value.GetString()) == "true";
  }
  return claims;
}

}  // namespace kg::team::oauth
