// One AuthorizationServer over a fresh database and state directory, with a clock the test
// moves, a log it can read, and helpers that seed a signed-in user and an authorization code
// without an upstream provider (the e2e test in tests/team drives the real sign-in).
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"
#include "../../support/test_json.hpp"
#include "../../support/test_loggers.hpp"
#include "authorization_server.hpp"
#include "form_encoding.hpp"
#include "oauth_secrets.hpp"
#include "pkce.hpp"
#include "store.hpp"
#include "url_form.hpp"

namespace kg::team::test {

inline rapidjson::Document parse_json(const std::string& text) {
  kg::json::ReadJson document_read = kg::test::read_test_json(text);
  rapidjson::Document& document = document_read.document;
  REQUIRE_FALSE(document_read.refused.has_value());
  return std::move(document);
}

inline std::string header_of(const HttpReply& reply, const std::string& name) {
  for (const auto& [key, value] : reply.headers) {
    if (key == name) return value;
  }
  return "";
}

// The query fields of a redirect's Location.
inline oauth::FormFields location_query(const HttpReply& reply) {
  const std::string location = header_of(reply, "Location");
  const auto question = location.find('?');
  return oauth::parse_form(question == std::string::npos ? "" : location.substr(question + 1));
}

inline constexpr const char* kPublicUrl = "https://mcp.example.com";
inline constexpr const char* kAliceId = "https://issuer.example#alice";
inline constexpr const char* kRedirect = "http://127.0.0.1:33418/callback";

struct SeededCode {
  std::string code, verifier, client_id;
};

class OAuthFixture {
 public:
  explicit OAuthFixture(OAuthSettings settings = default_settings())
      : store_(dir_ / "state.db") {
    settings.state_dir = dir_ / "state";
    server_ = std::make_unique<AuthorizationServer>(settings, store_, logger_, [this] { return now_; });
  }

  static OAuthSettings default_settings() {
    OAuthSettings settings;
    settings.public_url = kPublicUrl;
    settings.issuer = "http://127.0.0.1:9";  // nothing listens: these tests never go upstream
    settings.client_id = "daemon-client";
    settings.allowed_users = {"alice@example.com"};
    settings.allowed_domains = {"team.example"};
    return settings;
  }

  AuthorizationServer& server() { return *server_; }
  store::Store& store() { return store_; }
  kg::test::RecordingLogger& logger() { return logger_; }
  std::string state_dir() const { return dir_ / "state"; }
  void advance(std::int64_t seconds) { now_ += seconds; }
  std::int64_t now() const { return now_; }

  std::string register_client(const std::string& redirect_uri = kRedirect) {
    const HttpReply reply = server_->handle(
        {"POST", "/oauth/register", "", {{"content-type", "application/json"}},
         R"({"client_name":"test client","redirect_uris":[")" + redirect_uri + R"("]})"});
    REQUIRE(reply.status == 201);
    return parse_json(reply.body)["client_id"].GetString();
  }

  void seed_user(const std::string& user_id, const std::string& email) {
    store::OAuthUserRecord user;
    user.user_id = user_id;
    user.email = email;
    user.updated_at = now_;
    store_.save_oauth_user(user);
  }

  // What /oauth/callback leaves behind for a signed-in user: a code bound to client, PKCE and
  // resource.
  SeededCode seed_code(const std::string& client_id, const std::string& resource,
                       const std::string& scope = "mcp", const std::string& user_id = kAliceId,
                       const std::string& email = "alice@example.com") {
    seed_user(user_id, email);
    SeededCode seeded{oauth::random_secret(32), oauth::random_secret(32), client_id};
    store::OAuthCodeRecord code;
    code.code_hash = oauth::sha256_hex(seeded.code);
    code.client_id = client_id;
    code.redirect_uri = kRedirect;
    code.code_challenge = oauth::s256_challenge(seeded.verifier);
    code.resource = resource;
    code.scope = scope;
    code.user_id = user_id;
    code.family_id = oauth::random_secret(16);
    code.expires_at = now_ + 60;
    store_.insert_oauth_code(code);
    return seeded;
  }

  HttpReply token_request(const std::vector<std::pair<std::string, std::string>>& fields) {
    return server_->handle({"POST",
                            "/oauth/token",
                            "",
                            {{"content-type", "application/x-www-form-urlencoded"}},
                            kg::net::form_encode(fields)});
  }

  HttpReply redeem(const SeededCode& seeded, const std::string& verifier = "") {
    return token_request({{"grant_type", "authorization_code"},
                          {"code", seeded.code},
                          {"redirect_uri", kRedirect},
                          {"client_id", seeded.client_id},
                          {"code_verifier", verifier.empty() ? seeded.verifier : verifier}});
  }

  HttpReply refresh(const std::string& client_id, const std::string& refresh_token) {
    return token_request({{"grant_type", "refresh_token"},
                          {"refresh_token", refresh_token},
                          {"client_id", client_id}});
  }

  std::variant<SignedInUser, AuthFailure> authenticate(const std::string& access_token) {
    return server_->authenticate(
        {"POST", "/mcp", "", {{"authorization", "Bearer " + access_token}}, "{}"});
  }

 private:
  kg::test::TempDir dir_{"kg-oauth-"};
  store::Store store_;
  kg::test::RecordingLogger logger_;
  std::int64_t now_ = 1'800'000'000;
  std::unique_ptr<AuthorizationServer> server_;
};

}  // namespace kg::team::test
