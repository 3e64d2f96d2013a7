#include "adc_grants.hpp"

#include <Poco/Crypto/RSAKey.h>
#include <Poco/Exception.h>
#include <Poco/JWT/Signer.h>
#include <Poco/JWT/Token.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sstream>

#include "credentials_plugin.hpp"
#include "form_encoding.hpp"
#include "word_list.hpp"

namespace kg::creds_adc {
namespace {

using google_oauth::HttpCall;
using plugin::CredentialsError;

constexpr auto kJwtLifetime = std::chrono::hours(1);

std::string signed_assertion(const std::string& token_url, const ServiceAccountKey& key,
                             const std::vector<std::string>& scopes,
                             google_oauth::SystemTime now) {
  Poco::SharedPtr<Poco::Crypto::RSAKey> rsa;
  try {
    std::istringstream pem(key.private_key);
    rsa = new Poco::Crypto::RSAKey(nullptr, &pem);
  } catch (const Poco::Exception& e) {
    throw CredentialsError("The private key of service account " + key.client_email +
                           " cannot be read as an RSA key (" + e.displayText() +
                           "); download a new key file");
  }
  Poco::JWT::Token jwt;
  jwt.setType("JWT");
  if (!key.private_key_id.empty()) jwt.header().set("kid", key.private_key_id);
  jwt.setIssuer(key.client_email);
  jwt.setAudience(token_url);
  jwt.payload().set("scope", google_oauth::join_words(scopes, " "));
  const auto seconds = std::chrono::system_clock::to_time_t(now);
  jwt.setIssuedAt(Poco::Timestamp::fromEpochTime(seconds));
  jwt.setExpiration(Poco::Timestamp::fromEpochTime(
      seconds + std::chrono::duration_cast<std::chrono::seconds>(kJwtLifetime).count()));
  try {
    Poco::JWT::Signer signer(rsa);
    return signer.sign(jwt, Poco::JWT::Signer::ALGO_RS256);
  } catch (const Poco::Exception& e) {
    throw CredentialsError("Signing the token request of service account " + key.client_email +
                           " failed: " + e.displayText());
  }
}

}  // namespace

google_oauth::MintedToken refresh_user_token(const google_oauth::OAuthHttpClient& http,
                                             const std::string& token_url,
                                             const AuthorizedUser& user,
                                             google_oauth::SystemTime now) {
  HttpCall call;
  call.method = "POST";
  call.url = token_url;
  call.content_type = "application/x-www-form-urlencoded";
  call.what = "Refreshing the user's access token";
  call.body = net::form_encode({{"grant_type", "refresh_token"},
                                {"client_id", user.client_id},
                                {"client_secret", user.client_secret},
                                {"refresh_token", user.refresh_token}});
  const auto answer = http.send(call);
  if (answer.status == 400 || answer.status == 401) {
    throw CredentialsError(google_oauth::refusal_message(call, answer) +
                           " (the refresh token was refused: log in again with `gcloud auth "
                           "application-default login`)");
  }
  return google_oauth::read_oauth_token_answer(call, answer, now);
}

google_oauth::MintedToken service_account_token(const google_oauth::OAuthHttpClient& http,
                                                const std::string& token_url,
                                                const ServiceAccountKey& key,
                                                const std::vector<std::string>& scopes,
                                                google_oauth::SystemTime now) {
  HttpCall call;
  call.method = "POST";
  call.url = token_url;
  call.content_type = "application/x-www-form-urlencoded";
  call.what = "Getting a token for service account " + key.client_email;
  call.body = net::form_encode({{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
                                {"assertion", signed_assertion(token_url, key, scopes, now)}});
  const auto answer = http.send(call);
  if (answer.status == 400 || answer.status == 401) {
    throw CredentialsError(google_oauth::refusal_message(call, answer) +
                           " (the signed request was refused: the key may be deleted or "
                           "disabled; download a new key file)");
  }
  auto minted = google_oauth::read_oauth_token_answer(call, answer, now);
  if (minted.scope.empty()) minted.scope = google_oauth::join_words(scopes, " ");
  return minted;
}

google_oauth::MintedToken impersonated_token(const google_oauth::OAuthHttpClient& http,
                                             const std::string& url,
                                             const std::string& source_token,
                                             const std::vector<std::string>& delegates,
                                             const std::vector<std::string>& scopes,
                                             google_oauth::SystemTime now) {
  rapidjson::StringBuffer body;
  rapidjson::Writer<rapidjson::StringBuffer> writer(body);
  writer.StartObject();
  writer.Key("scope");
  writer.StartArray();
  for (const auto& scope : scopes) writer.String(scope.c_str());
  writer.EndArray();
  if (!delegates.empty()) {
    writer.Key("delegates");
    writer.StartArray();
    for (const auto& d : delegates) {
      writer.String((d.starts_with("projects/") ? d : "projects/-/serviceAccounts/" + d).c_str());
    }
    writer.EndArray();
  }
  writer.Key("lifetime");
  writer.String("3600s");
  writer.EndObject();
  HttpCall call;
  call.method = "POST";
  call.url = url;
  call.content_type = "application/json";
  call.headers = {{"Authorization", "Bearer " + source_token}};
  call.body = body.GetString();
  const auto slash = url.rfind('/');
  call.what = "Impersonating service account " +
              url.substr(slash + 1, url.rfind(':') - slash - 1);
  const auto answer = http.send(call);
  if (answer.status == 403) {
    throw CredentialsError(google_oauth::refusal_message(call, answer) +
                           " (the source identity needs roles/iam.serviceAccountTokenCreator on "
                           "that service account)");
  }
  auto minted = google_oauth::read_iam_token_answer(call, answer, now);
  minted.scope = google_oauth::join_words(scopes, " ");
  return minted;
}

std::string generate_access_token_url(const std::string& base_url, const std::string& email) {
  return base_url + "/v1/projects/-/serviceAccounts/" + email + ":generateAccessToken";
}

}  // namespace kg::creds_adc
