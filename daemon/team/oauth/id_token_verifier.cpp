#include "id_token_verifier.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <rapidjson/document.h>

#include <Poco/Crypto/EVPPKey.h>
#include <Poco/Crypto/RSAKey.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/JWT/Signer.h>
#include <Poco/JWT/Token.h>

#include <algorithm>
#include <memory>

#include "oauth_secrets.hpp"

namespace kg::team::oauth {
namespace {

std::string member_text(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return "";
  const auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString() : "";
}

// The JWT's header names the algorithm and (usually) the key id.
rapidjson::Document jwt_header(const std::string& id_token) {
  const auto decoded = base64url_decode(id_token.substr(0, id_token.find('.')));
  rapidjson::Document header;
  if (!decoded || header.Parse(decoded->c_str()).HasParseError() || !header.IsObject()) {
    throw IdTokenError("the ID token is not a JWT (its header is not base64url JSON)");
  }
  return header;
}

using BigNum = std::unique_ptr<BIGNUM, decltype(&BN_free)>;

BigNum bignum_from_base64url(const std::string& text, const char* what) {
  const auto raw = base64url_decode(text);
  if (!raw || raw->empty()) throw IdTokenError(std::string("a JWKS key has a bad ") + what);
  return BigNum(BN_bin2bn(reinterpret_cast<const unsigned char*>(raw->data()),
                          static_cast<int>(raw->size()), nullptr),
                &BN_free);
}

// An RSA public key from a JWK's modulus and exponent, as Poco::Crypto wants it.
Poco::SharedPtr<Poco::Crypto::RSAKey> rsa_key_from_jwk(const rapidjson::Value& jwk) {
  const BigNum n = bignum_from_base64url(member_text(jwk, "n"), "modulus (n)");
  const BigNum e = bignum_from_base64url(member_text(jwk, "e"), "exponent (e)");
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
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw_key, &EVP_PKEY_free);
  const Poco::Crypto::EVPPKey poco_key(key.get());  // duplicates the key
  return new Poco::Crypto::RSAKey(poco_key);
}

const rapidjson::Value& signing_key(const rapidjson::Document& jwks, const std::string& kid) {
  if (!jwks.IsObject() || !jwks.HasMember("keys") || !jwks["keys"].IsArray()) {
    throw IdTokenError("the provider's JWKS has no \"keys\" array");
  }
  const rapidjson::Value* only_rsa = nullptr;
  int rsa_keys = 0;
  for (const auto& key : jwks["keys"].GetArray()) {
    if (member_text(key, "kty") != "RSA") continue;
    const std::string use = member_text(key, "use");
    if (!use.empty() && use != "sig") continue;
    if (!kid.empty() && member_text(key, "kid") == kid) return key;
    only_rsa = &key;
    ++rsa_keys;
  }
  if (kid.empty() && rsa_keys == 1) return *only_rsa;
  throw IdTokenError("no RSA signing key " + (kid.empty() ? std::string() : "with kid \"" + kid + "\" ") +
                     "in the provider's JWKS (the ID token names " +
                     (kid.empty() ? "no kid" : "kid \"" + kid + "\"") + ")");
}

std::string claim_text(const Poco::JSON::Object& payload, const std::string& name) {
  if (!payload.has(name)) return "";
  const Poco::Dynamic::Var value = payload.get(name);
  return value.isString() ? value.extract<std::string>() : "";
}

void check_claims(const Poco::JWT::Token& token, const IdTokenExpectations& expected) {
  const Poco::JSON::Object& payload = token.payload();
  if (token.getIssuer() != expected.issuer) {
    throw IdTokenError("the ID token's issuer \"" + token.getIssuer() + "\" is not the configured "
                       "issuer \"" + expected.issuer + "\"");
  }
  const std::vector<std::string> audience = token.getAudience();
  if (std::find(audience.begin(), audience.end(), expected.client_id) == audience.end()) {
    throw IdTokenError("the ID token is not for this daemon's client_id \"" + expected.client_id + "\"");
  }
  const std::string azp = claim_text(payload, "azp");
  if (!azp.empty() && azp != expected.client_id) {
    throw IdTokenError("the ID token was issued to another party (azp \"" + azp + "\")");
  }
  if (!payload.has("exp")) throw IdTokenError("the ID token has no expiry (exp)");
  const std::int64_t exp = token.getExpiration().epochTime();
  if (exp + expected.allowed_clock_skew_s < expected.now) {
    throw IdTokenError("the ID token has expired (is the host's clock right?)");
  }
  if (claim_text(payload, "nonce") != expected.nonce || expected.nonce.empty()) {
    throw IdTokenError("the ID token's nonce does not match the sign-in it answers (a replayed "
                       "or mixed-up sign-in); start the sign-in again");
  }
  if (token.getSubject().empty()) throw IdTokenError("the ID token names no subject (sub)");
}

}  // namespace

IdTokenClaims verify_id_token(const std::string& id_token, const std::string& jwks_json,
                              const IdTokenExpectations& expected) {
  const rapidjson::Document header = jwt_header(id_token);
  if (member_text(header, "alg") != "RS256") {
    throw IdTokenError("the ID token is signed with \"" + member_text(header, "alg") +
                       "\"; only RS256 is accepted");
  }
  rapidjson::Document jwks;
  if (jwks.Parse(jwks_json.c_str()).HasParseError()) {
    throw IdTokenError("the provider's JWKS is not JSON");
  }
  Poco::JWT::Signer signer(rsa_key_from_jwk(signing_key(jwks, member_text(header, "kid"))));
  signer.setAlgorithms({Poco::JWT::Signer::ALGO_RS256});
  Poco::JWT::Token token;
  try {
    token = signer.verify(id_token);
  } catch (const Poco::Exception& e) {
    throw IdTokenError("the ID token's signature does not verify against the provider's JWKS (" +
                       e.displayText() + ")");
  }
  check_claims(token, expected);
  IdTokenClaims claims;
  claims.issuer = token.getIssuer();
  claims.subject = token.getSubject();
  claims.email = claim_text(token.payload(), "email");
  claims.expires_at = token.getExpiration().epochTime();
  if (token.payload().has("email_verified")) {
    const Poco::Dynamic::Var verified = token.payload().get("email_verified");
    // Some providers send the string "true".
    claims.email_verified = verified.isBoolean() ? verified.extract<bool>()
                                                 : verified.isString() && verified.toString() == "true";
  }
  return claims;
}

}  // namespace kg::team::oauth
