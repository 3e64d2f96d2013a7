// The whole sign-in of team mode against a real upstream OpenID Connect provider (the mock on
// loopback): registration, /oauth/authorize to the provider and back through /oauth/callback
// (code exchange with the daemon's PKCE, ID token checked against the provider's JWKS, nonce,
// allowlist), the client's token exchange, the bearer check, and the user's upstream token for
// run_as = user, refreshed through the provider. The HTTP layer is left out: the exchanges are
// handed to the AuthorizationServer as daemon/team/http would.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <mutex>

#include "../support/temp_dir.hpp"
#include "../support/test_json.hpp"
#include "../support/test_loggers.hpp"
#include "authorization_server.hpp"
#include "form_encoding.hpp"
#include "mock_oidc_provider.hpp"
#include "oauth_secrets.hpp"
#include "pkce.hpp"
#include "url_form.hpp"

using namespace kg::team;

namespace {

constexpr const char* kPublicUrl = "https://mcp.example.com";
constexpr const char* kClientRedirect = "http://127.0.0.1:33418/callback";

std::string header_of(const HttpReply& reply, const std::string& name) {
  for (const auto& [key, value] : reply.headers) {
    if (key == name) return value;
  }
  return "";
}

std::string query_of(const std::string& url) {
  const auto question = url.find('?');
  return question == std::string::npos ? "" : url.substr(question + 1);
}

// What a browser does at the provider's /authorize: it answers with a redirect at once.
std::string follow_upstream_redirect(const std::string& url) {
  const Poco::URI uri(url);
  REQUIRE(uri.getHost() == "127.0.0.1");
  Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
  Poco::Net::HTTPRequest request("GET", uri.getPathAndQuery(), Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& body = session.receiveResponse(response);
  std::string text((std::istreambuf_iterator<char>(body)), std::istreambuf_iterator<char>());
  INFO(text);
  REQUIRE(response.getStatus() == Poco::Net::HTTPResponse::HTTP_FOUND);
  return response.get("Location");
}

// A hidden input's value in a page (the consent form's consent_id and csrf).
std::string hidden_field(const std::string& html, const std::string& name) {
  const std::string marker = "name=\"" + name + "\" value=\"";
  const auto start = html.find(marker);
  REQUIRE(start != std::string::npos);
  const auto value = start + marker.size();
  return html.substr(value, html.find('"', value) - value);
}

struct SignIn {
  std::string access_token, refresh_token;
};

class SignInFixture {
 public:
  SignInFixture() : store_(dir_ / "state.db") {
    OAuthSettings settings;
    settings.public_url = kPublicUrl;
    settings.state_dir = dir_ / "state";
    settings.issuer = provider_.issuer();
    settings.client_id = "kode-gopher-daemon";
    settings.scopes = {"openid", "email"};
    settings.allowed_users = {"alice@example.com"};
    settings.allowed_domains = {"team.example"};
    server_ = std::make_unique<AuthorizationServer>(settings, store_, logger_, [this] {
      return std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count() + offset_;
    });
    client_id_ = register_client("e2e");
  }

  // Dynamic registration of a client with the redirect URI these tests use; its client_id.
  std::string register_client(const std::string& name) {
    const HttpReply registered = server_->handle(
        {"POST", "/oauth/register", "", {{"content-type", "application/json"}},
         R"({"client_name":")" + name + R"(","redirect_uris":[")" + kClientRedirect + R"("]})"});
    REQUIRE(registered.status == 201);
    kg::json::ReadJson json_read = kg::test::read_test_json(registered.body);
    rapidjson::Document& json = json_read.document;
    return json["client_id"].GetString();
  }

  AuthorizationServer& server() { return *server_; }
  kg::store::Store& store() { return store_; }
  kg::test::RecordingLogger& logger() { return logger_; }
  const std::string& issuer() const { return provider_.issuer(); }
  void advance(std::int64_t seconds) { offset_ += seconds; }

  // The browser's part: authorize -> provider -> callback. Returns the callback's reply.
  // send_redirect_uri false: the client relies on its only registered one (RFC 6749 §3.1.2.3).
  HttpReply browse_sign_in(const std::string& login_hint, const std::string& verifier,
                           bool send_redirect_uri = true) {
    std::vector<std::pair<std::string, std::string>> fields = {
        {"response_type", "code"}, {"client_id", client_id_},
        {"code_challenge", kg::team::oauth::s256_challenge(verifier)},
        {"code_challenge_method", "S256"}, {"state", "client-state-1"},
        {"resource", std::string(kPublicUrl) + "/mcp"}, {"scope", "mcp"},
        {"login_hint", login_hint}};
    if (send_redirect_uri) fields.emplace_back("redirect_uri", kClientRedirect);
    const std::string query = kg::net::form_encode(fields);
    const HttpReply authorize = server_->handle({"GET", "/oauth/authorize", query, {}, ""});
    INFO(authorize.body);
    REQUIRE(authorize.status == 302);
    const std::string upstream = header_of(authorize, "Location");
    REQUIRE(upstream.rfind(issuer() + "/authorize?", 0) == 0);
    const auto sent = kg::team::oauth::parse_form(query_of(upstream));
    CHECK(sent.get("client_id") == "kode-gopher-daemon");
    CHECK(sent.get("redirect_uri") == std::string(kPublicUrl) + "/oauth/callback");
    CHECK(sent.get("code_challenge_method") == "S256");
    CHECK(sent.get("access_type") == "offline");
    CHECK(sent.get("prompt") == "consent");
    CHECK(sent.get("scope") == "openid email");
    CHECK(sent.get("login_hint") == login_hint);
    CHECK(sent.get("state") != "client-state-1");  // the daemon's own
    CHECK_FALSE(sent.get("nonce").empty());

    // The browser keeps the cookie that binds the sign-in to it.
    const std::string set_cookie = header_of(authorize, "Set-Cookie");
    REQUIRE(set_cookie.rfind("kg_oauth_signin=", 0) == 0);
    CHECK(set_cookie.find("HttpOnly") != std::string::npos);
    CHECK(set_cookie.find("Secure") != std::string::npos);  // public_url is https
    last_cookie_ = set_cookie.substr(0, set_cookie.find(';'));

    const std::string back = follow_upstream_redirect(upstream);
    REQUIRE(back.rfind(std::string(kPublicUrl) + "/oauth/callback?", 0) == 0);
    last_callback_query_ = query_of(back);
    const HttpReply callback =
        server_->handle({"GET", "/oauth/callback", last_callback_query_, {{"cookie", last_cookie_}}, ""});
    if (callback.status != 200) return callback;  // a refusal page, or (approved before) the code
    return answer_consent(callback, consent_);
  }

  // The user's answer on the daemon's consent page ("allow" or "deny"), from this browser.
  HttpReply answer_consent(const HttpReply& page, const std::string& decision,
                           const std::string& cookie = "") {
    INFO(page.body);
    REQUIRE(page.body.find("action=\"/oauth/consent\"") != std::string::npos);
    CHECK(page.body.find("e2e") != std::string::npos);               // the client's name
    CHECK(page.body.find("127.0.0.1:33418") != std::string::npos);   // where the code would go
    const std::string form =
        kg::net::form_encode({{"consent_id", hidden_field(page.body, "consent_id")},
                              {"csrf", hidden_field(page.body, "csrf")},
                              {"decision", decision}});
    return server_->handle({"POST", "/oauth/consent", "",
                            {{"content-type", "application/x-www-form-urlencoded"},
                             {"cookie", cookie.empty() ? last_cookie_ : cookie}},
                            form});
  }

  void set_consent(std::string decision) { consent_ = std::move(decision); }
  const std::string& last_cookie() const { return last_cookie_; }

  SignIn sign_in(const std::string& login_hint, bool send_redirect_uri = true) {
    const std::string verifier = kg::team::oauth::random_secret(32);
    const HttpReply callback = browse_sign_in(login_hint, verifier, send_redirect_uri);
    INFO(callback.body);
    REQUIRE(callback.status == 302);
    const std::string location = header_of(callback, "Location");
    REQUIRE(location.rfind(std::string(kClientRedirect) + "?", 0) == 0);
    const auto answer = kg::team::oauth::parse_form(query_of(location));
    CHECK(answer.get("state") == "client-state-1");
    CHECK(answer.get("iss") == kPublicUrl);
    REQUIRE_FALSE(answer.get("code").empty());
    const HttpReply token = server_->handle(
        {"POST",
         "/oauth/token",
         "",
         {{"content-type", "application/x-www-form-urlencoded"}},
         kg::net::form_encode({{"grant_type", "authorization_code"},
                               {"code", answer.get("code")},
                               {"redirect_uri", send_redirect_uri ? kClientRedirect : ""},
                               {"client_id", client_id_},
                               {"code_verifier", verifier},
                               {"resource", std::string(kPublicUrl) + "/mcp"}})});
    INFO(token.body);
    REQUIRE(token.status == 200);
    kg::json::ReadJson json_read = kg::test::read_test_json(token.body);
    rapidjson::Document& json = json_read.document;
    return {json["access_token"].GetString(), json["refresh_token"].GetString()};
  }

  std::variant<SignedInUser, AuthFailure> authenticate(const std::string& token) {
    return server_->authenticate({"POST", "/mcp", "", {{"authorization", "Bearer " + token}}, "{}"});
  }

  const std::string& last_callback_query() const { return last_callback_query_; }
  const std::string& client_id() const { return client_id_; }

 private:
  kg::test::MockOidcProvider provider_;
  kg::test::TempDir dir_{"kg-team-oauth-"};
  kg::store::Store store_;
  kg::test::RecordingLogger logger_;
  std::int64_t offset_ = 0;
  std::unique_ptr<AuthorizationServer> server_;
  std::string client_id_;
  std::string last_callback_query_;
  std::string last_cookie_;
  std::string consent_ = "allow";
};

}  // namespace

TEST_CASE("a user on the allowlist signs in through the provider and reaches /mcp") {
  SignInFixture fixture;
  const std::string idle_client = fixture.register_client("never used");
  CHECK(fixture.store().find_oauth_client(fixture.client_id())->last_used_at == 0);
  const SignIn alice = fixture.sign_in("alice@example.com");
  // The sign-in marks the registration used: it is kept past the day unused ones get.
  CHECK(fixture.store().find_oauth_client(fixture.client_id())->last_used_at > 0);
  const auto result = fixture.authenticate(alice.access_token);
  REQUIRE(std::holds_alternative<SignedInUser>(result));
  const SignedInUser user = std::get<SignedInUser>(result);
  CHECK(user.user_id == fixture.issuer() + "#sub-alice@example.com");
  CHECK(user.email == "alice@example.com");

  // A domain member is let in as well, as a different user.
  const SignIn carol = fixture.sign_in("carol@team.example");
  const auto carol_user = fixture.authenticate(carol.access_token);
  REQUIRE(std::holds_alternative<SignedInUser>(carol_user));
  CHECK(std::get<SignedInUser>(carol_user).user_id == fixture.issuer() + "#sub-carol@team.example");

  // The client refreshes; the new access token works and the old refresh token is spent.
  auto refresh = [&](const std::string& refresh_token) {
    return fixture.server().handle({"POST",
                                    "/oauth/token",
                                    "",
                                    {{"content-type", "application/x-www-form-urlencoded"}},
                                    kg::net::form_encode({{"grant_type", "refresh_token"},
                                                          {"refresh_token", refresh_token},
                                                          {"client_id", fixture.client_id()}})});
  };
  const HttpReply refreshed = refresh(alice.refresh_token);
  INFO(refreshed.body);
  REQUIRE(refreshed.status == 200);
  kg::json::ReadJson json_read = kg::test::read_test_json(refreshed.body);
  rapidjson::Document& json = json_read.document;
  CHECK(std::holds_alternative<SignedInUser>(fixture.authenticate(json["access_token"].GetString())));
  CHECK(refresh(alice.refresh_token).status == 400);
  CHECK(std::holds_alternative<AuthFailure>(fixture.authenticate(json["access_token"].GetString())));
  // Carol's sign-in is a family of its own, untouched.
  CHECK(std::holds_alternative<SignedInUser>(fixture.authenticate(carol.access_token)));

  // A client that leaves redirect_uri out (it registered one) signs in the same way.
  CHECK(std::holds_alternative<SignedInUser>(
      fixture.authenticate(fixture.sign_in("alice@example.com", false).access_token)));
  CHECK(fixture.logger().text().find(alice.access_token) == std::string::npos);
  CHECK(fixture.logger().text().find("alice@example.com signed in") != std::string::npos);

  // Two days on, a new registration drops the ones nobody signed in through, not this one.
  fixture.advance(2 * 86400);
  const std::string later_client = fixture.register_client("later");
  CHECK(fixture.store().find_oauth_client(fixture.client_id()).has_value());
  CHECK_FALSE(fixture.store().find_oauth_client(idle_client).has_value());
  CHECK(fixture.store().find_oauth_client(later_client).has_value());
}

TEST_CASE("the user's upstream token is kept sealed and refreshed through the provider") {
  SignInFixture fixture;
  fixture.sign_in("alice@example.com");
  const std::string user_id = fixture.issuer() + "#sub-alice@example.com";
  const auto stored = fixture.store().find_oauth_user(user_id);
  REQUIRE(stored.has_value());
  CHECK_FALSE(stored->sealed_refresh_token.empty());

  const kg::plugin::RunCredentials first = fixture.server().upstream_credentials(user_id);
  CHECK(first.mode == kg::plugin::CredentialMode::access_token);
  CHECK(first.identity == "alice@example.com");
  CHECK(first.token.email == "alice@example.com");
  REQUIRE_FALSE(first.token.access_token.empty());
  CHECK(stored->sealed_access_token.find(first.token.access_token) == std::string::npos);
  // Still valid for long: the same token again, no refresh.
  CHECK(fixture.server().upstream_credentials(user_id).token.access_token == first.token.access_token);
  CHECK(fixture.logger().text().find("refreshed") == std::string::npos);

  // The provider's token (valid an hour) now has less than five minutes left: refreshed.
  fixture.advance(3600 - 200);
  const kg::plugin::RunCredentials second = fixture.server().upstream_credentials(user_id);
  CHECK(second.token.access_token != first.token.access_token);
  CHECK(fixture.logger().text().find("refreshed the upstream token of alice@example.com") != std::string::npos);
  CHECK(second.token.expiry_rfc3339 > first.token.expiry_rfc3339);

  // The provider's own token presented to /mcp is not ours: refused.
  const auto passthrough = fixture.authenticate(second.token.access_token);
  REQUIRE(std::holds_alternative<AuthFailure>(passthrough));
  CHECK(std::get<AuthFailure>(passthrough).status == 401);
  CHECK(std::get<AuthFailure>(passthrough).www_authenticate.find("invalid_token") != std::string::npos);

  CHECK_THROWS_AS(fixture.server().upstream_credentials(fixture.issuer() + "#nobody"),
                  kg::plugin::CredentialsError);
}

TEST_CASE("users outside the allowlist, unverified or without an email get a 403 page and no code") {
  SignInFixture fixture;
  const struct {
    const char* hint;
    const char* words;
  } cases[] = {
      {"mallory@example.com", "not allowed to use this server"},
      {"unverified:carol@team.example", "not verified"},
      {"", "did not tell this server your email"},
  };
  for (const auto& refused : cases) {
    CAPTURE(refused.hint);
    const HttpReply reply = fixture.browse_sign_in(refused.hint, kg::team::oauth::random_secret(32));
    CHECK(reply.status == 403);
    CHECK(reply.content_type.rfind("text/html", 0) == 0);
    CHECK(header_of(reply, "Location").empty());
    CHECK(reply.body.find(refused.words) != std::string::npos);
  }
}

TEST_CASE("a provider answer is taken once: replaying the callback is refused") {
  SignInFixture fixture;
  const HttpReply first = fixture.browse_sign_in("alice@example.com", kg::team::oauth::random_secret(32));
  REQUIRE(first.status == 302);
  const HttpReply replay = fixture.server().handle({"GET", "/oauth/callback", fixture.last_callback_query(), {}, ""});
  CHECK(replay.status == 400);
  CHECK(replay.body.find("Start it again") != std::string::npos);
}

// Alice's browser at /oauth/authorize for the fixture's client (the redirect to the provider).
HttpReply authorize_alice(SignInFixture& fixture, const std::string& verifier) {
  const std::string query =
      kg::net::form_encode({{"response_type", "code"},
                            {"client_id", fixture.client_id()},
                            {"code_challenge", kg::team::oauth::s256_challenge(verifier)},
                            {"code_challenge_method", "S256"},
                            {"redirect_uri", kClientRedirect},
                            {"login_hint", "alice@example.com"}});
  return fixture.server().handle({"GET", "/oauth/authorize", query, {}, ""});
}

TEST_CASE("no code leaves before the user approves the client, in the browser that started it") {
  SignInFixture fixture;
  const std::string verifier = kg::team::oauth::random_secret(32);

  SUBCASE("Deny sends the client access_denied and no code") {
    fixture.set_consent("deny");
    const HttpReply denied = fixture.browse_sign_in("alice@example.com", verifier);
    REQUIRE(denied.status == 302);
    const auto answer = kg::team::oauth::parse_form(query_of(header_of(denied, "Location")));
    CHECK(answer.get("error") == "access_denied");
    CHECK(answer.get("code").empty());
    CHECK(answer.get("state") == "client-state-1");
  }
  SUBCASE("a provider link finished in another browser (no cookie) is refused") {
    fixture.set_consent("allow");
    // The attacker's sign-in link, opened by the victim: the callback arrives without the cookie
    // the attacker's browser got at /oauth/authorize.
    const HttpReply authorize = authorize_alice(fixture, verifier);
    REQUIRE(authorize.status == 302);
    const std::string back = follow_upstream_redirect(header_of(authorize, "Location"));
    const HttpReply callback = fixture.server().handle(
        {"GET", "/oauth/callback", query_of(back), {{"cookie", "kg_oauth_signin=not-the-one"}}, ""});
    CHECK(callback.status == 400);
    CHECK(callback.body.find("started in another browser") != std::string::npos);
    CHECK(header_of(callback, "Location").empty());
  }
  SUBCASE("an approval from another browser is refused, and the approval is spent") {
    fixture.set_consent("allow");
    const HttpReply authorize = authorize_alice(fixture, verifier);
    const std::string cookie = header_of(authorize, "Set-Cookie").substr(
        0, header_of(authorize, "Set-Cookie").find(';'));
    const std::string back = follow_upstream_redirect(header_of(authorize, "Location"));
    const HttpReply page = fixture.server().handle(
        {"GET", "/oauth/callback", query_of(back), {{"cookie", cookie}}, ""});
    REQUIRE(page.status == 200);
    const HttpReply elsewhere = fixture.answer_consent(page, "allow", "kg_oauth_signin=other");
    CHECK(elsewhere.status == 400);
    CHECK(header_of(elsewhere, "Location").empty());
    // The consent was taken by that attempt: it cannot be answered again.
    const HttpReply again = fixture.answer_consent(page, "allow", cookie);
    CHECK(again.status == 400);
  }
  SUBCASE("once approved, the same user and client are not asked again") {
    fixture.set_consent("allow");
    fixture.sign_in("alice@example.com");
    fixture.set_consent("never asked");  // answer_consent would fail its page checks
    const HttpReply second = fixture.browse_sign_in("alice@example.com", verifier);
    CHECK(second.status == 302);
    CHECK_FALSE(kg::team::oauth::parse_form(query_of(header_of(second, "Location"))).get("code").empty());
  }
}
