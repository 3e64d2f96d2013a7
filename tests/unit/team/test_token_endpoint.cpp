// /oauth/token and authenticate(): issuing, checking, expiry, audience, scope, rotation with
// family revocation, and code replay revocation. Codes are seeded as /oauth/callback leaves them.
#include "oauth_test_fixture.hpp"

using namespace kg::team;
using namespace kg::team::test;

namespace {

struct Issued {
  std::string access_token, refresh_token;
};

Issued issued(const HttpReply& reply) {
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  CHECK(header_of(reply, "Cache-Control") == "no-store");
  const auto json = parse_json(reply.body);
  CHECK(std::string(json["token_type"].GetString()) == "Bearer");
  CHECK(std::string(json["scope"].GetString()) == "mcp");
  CHECK(json["expires_in"].GetInt64() == 900);
  return {json["access_token"].GetString(), json["refresh_token"].GetString()};
}

std::string oauth_error_of(const HttpReply& reply) {
  const auto json = parse_json(reply.body);
  return json.HasMember("error") ? json["error"].GetString() : "(no error: HTTP " + std::to_string(reply.status) + ")";
}

const AuthFailure& failure(const std::variant<SignedInUser, AuthFailure>& result) {
  REQUIRE(std::holds_alternative<AuthFailure>(result));
  return std::get<AuthFailure>(result);
}

}  // namespace

TEST_CASE("a redeemed code gives an access token that authenticates its user, never stored in clear") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const Issued tokens = issued(fixture.redeem(fixture.seed_code(client, std::string(kPublicUrl) + "/mcp")));
  CHECK(tokens.access_token.size() == 43);  // 256 bits
  const auto result = fixture.authenticate(tokens.access_token);
  REQUIRE(std::holds_alternative<SignedInUser>(result));
  CHECK(std::get<SignedInUser>(result).user_id == kAliceId);
  CHECK(std::get<SignedInUser>(result).email == "alice@example.com");
  // Only the hash is in the database.
  CHECK(fixture.store().find_oauth_token(kg::team::oauth::sha256_hex(tokens.access_token)).has_value());
  CHECK_FALSE(fixture.store().find_oauth_token(tokens.access_token).has_value());
  // The audience <public_url> is accepted as well as <public_url>/mcp.
  CHECK(std::holds_alternative<SignedInUser>(
      fixture.authenticate(issued(fixture.redeem(fixture.seed_code(client, kPublicUrl))).access_token)));
  CHECK(fixture.logger().text().find(tokens.access_token) == std::string::npos);
}

TEST_CASE("authenticate refuses a missing, unknown, expired, foreign-audience or scope-less token") {
  OAuthFixture fixture;
  const std::string metadata = "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"";
  const AuthFailure none = failure(fixture.server().authenticate({"POST", "/mcp", "", {}, ""}));
  CHECK(none.status == 401);
  CHECK(none.www_authenticate == "Bearer " + metadata + ", scope=\"mcp\"");

  const AuthFailure unknown = failure(fixture.authenticate("ya29.an-upstream-provider-token"));
  CHECK(unknown.status == 401);
  CHECK(unknown.www_authenticate.rfind("Bearer " + metadata + ", scope=\"mcp\", error=\"invalid_token\", error_description=\"", 0) == 0);
  CHECK(unknown.message.find("identity provider are not accepted") != std::string::npos);
  CHECK(failure(fixture.server().authenticate({"POST", "/mcp", "", {{"authorization", "Basic abc"}}, ""})).status == 401);

  const std::string client = fixture.register_client();
  const Issued tokens = issued(fixture.redeem(fixture.seed_code(client, std::string(kPublicUrl) + "/mcp")));
  fixture.advance(901);
  const AuthFailure expired = failure(fixture.authenticate(tokens.access_token));
  CHECK(expired.status == 401);
  CHECK(expired.message.find("expired") != std::string::npos);
  // A refresh token is no access token.
  CHECK(failure(fixture.authenticate(tokens.refresh_token)).status == 401);

  // A token bound to another resource (public_url changed since it was issued).
  const std::string other_access = kg::team::oauth::random_secret();
  fixture.store().insert_oauth_tokens({{kg::team::oauth::sha256_hex(other_access), "access", "f1",
                                        kAliceId, client, "https://other.example/mcp", "mcp",
                                        fixture.now() + 900, "active"}});
  const AuthFailure foreign = failure(fixture.authenticate(other_access));
  CHECK(foreign.status == 401);
  CHECK(foreign.www_authenticate.find("invalid_token") != std::string::npos);
  CHECK(foreign.message.find("another resource") != std::string::npos);

  // A token without scope mcp (none is issued so today; the check guards scopes to come).
  const std::string no_scope = kg::team::oauth::random_secret();
  fixture.store().insert_oauth_tokens({{kg::team::oauth::sha256_hex(no_scope), "access", "f2",
                                        kAliceId, client, std::string(kPublicUrl) + "/mcp", "other",
                                        fixture.now() + 900, "active"}});
  const AuthFailure insufficient = failure(fixture.authenticate(no_scope));
  CHECK(insufficient.status == 403);
  CHECK(insufficient.www_authenticate.rfind("Bearer error=\"insufficient_scope\", scope=\"mcp\"", 0) == 0);
  CHECK(insufficient.www_authenticate.find(metadata) != std::string::npos);
}

TEST_CASE("a code is single use: a replay is refused and revokes the tokens it issued") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const SeededCode code = fixture.seed_code(client, std::string(kPublicUrl) + "/mcp");
  const Issued first = issued(fixture.redeem(code));
  const HttpReply replay = fixture.redeem(code);
  CHECK(replay.status == 400);
  CHECK(oauth_error_of(replay) == "invalid_grant");
  CHECK(replay.body.find("already used") != std::string::npos);
  CHECK(failure(fixture.authenticate(first.access_token)).message.find("revoked") != std::string::npos);
  CHECK(oauth_error_of(fixture.refresh(client, first.refresh_token)) == "invalid_grant");
  CHECK(fixture.logger().text().find("presented twice") != std::string::npos);
}

TEST_CASE("a code needs the right PKCE verifier, client, redirect_uri, resource, and to be fresh") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const std::string mcp = std::string(kPublicUrl) + "/mcp";
  auto grant_error = [&](const HttpReply& reply, const char* error, const char* words) {
    INFO(reply.body);
    CHECK(reply.status == 400);
    CHECK(oauth_error_of(reply) == error);
    CHECK(reply.body.find(words) != std::string::npos);
  };
  grant_error(fixture.redeem(fixture.seed_code(client, mcp), kg::team::oauth::random_secret(32)),
              "invalid_grant", "code_verifier");
  SeededCode other_client = fixture.seed_code(client, mcp);
  other_client.client_id = "kgc-someone-else";
  grant_error(fixture.redeem(other_client), "invalid_grant", "another client");
  const SeededCode code = fixture.seed_code(client, mcp);
  grant_error(fixture.token_request({{"grant_type", "authorization_code"}, {"code", code.code},
                                     {"redirect_uri", "http://127.0.0.1:1/elsewhere"},
                                     {"client_id", client}, {"code_verifier", code.verifier}}),
              "invalid_grant", "redirect_uri");
  const SeededCode with_resource = fixture.seed_code(client, mcp);
  grant_error(fixture.token_request({{"grant_type", "authorization_code"}, {"code", with_resource.code},
                                     {"redirect_uri", kRedirect}, {"client_id", client},
                                     {"code_verifier", with_resource.verifier},
                                     {"resource", "https://other.example/mcp"}}),
              "invalid_target", "resource");
  const SeededCode stale = fixture.seed_code(client, mcp);
  fixture.advance(61);
  grant_error(fixture.redeem(stale), "invalid_grant", "60 seconds");
  grant_error(fixture.redeem({"no-such-code", "v", client}), "invalid_grant", "unknown");
}

TEST_CASE("refresh tokens rotate, and reusing a consumed one revokes the whole family") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const Issued first = issued(fixture.redeem(fixture.seed_code(client, std::string(kPublicUrl) + "/mcp")));
  fixture.advance(600);
  const Issued second = issued(fixture.refresh(client, first.refresh_token));
  CHECK(second.refresh_token != first.refresh_token);
  CHECK(second.access_token != first.access_token);
  CHECK(std::holds_alternative<SignedInUser>(fixture.authenticate(second.access_token)));
  const Issued third = issued(fixture.refresh(client, second.refresh_token));
  // A stolen copy of the first refresh token shows up again: everything of the family goes.
  const HttpReply reuse = fixture.refresh(client, first.refresh_token);
  CHECK(reuse.status == 400);
  CHECK(oauth_error_of(reuse) == "invalid_grant");
  CHECK(failure(fixture.authenticate(third.access_token)).message.find("revoked") != std::string::npos);
  CHECK(failure(fixture.authenticate(second.access_token)).status == 401);
  CHECK(oauth_error_of(fixture.refresh(client, third.refresh_token)) == "invalid_grant");
  // Another sign-in's family is untouched.
  const Issued separate = issued(fixture.redeem(fixture.seed_code(client, std::string(kPublicUrl) + "/mcp")));
  CHECK(std::holds_alternative<SignedInUser>(fixture.authenticate(separate.access_token)));
}

TEST_CASE("a refresh token works for its own client only, and expires") {
  OAuthFixture fixture;
  const std::string client = fixture.register_client();
  const std::string mcp = std::string(kPublicUrl) + "/mcp";
  const Issued stolen = issued(fixture.redeem(fixture.seed_code(client, mcp)));
  CHECK(oauth_error_of(fixture.refresh("kgc-thief", stolen.refresh_token)) == "invalid_grant");
  CHECK(failure(fixture.authenticate(stolen.access_token)).status == 401);
  const Issued old = issued(fixture.redeem(fixture.seed_code(client, mcp)));
  fixture.advance(604801);
  const HttpReply expired = fixture.refresh(client, old.refresh_token);
  CHECK(oauth_error_of(expired) == "invalid_grant");
  CHECK(expired.body.find("The refresh token expired; sign in again.") != std::string::npos);
}

TEST_CASE("a user taken off the allowlist is refused at once and cannot refresh") {
  OAuthSettings settings = OAuthFixture::default_settings();
  OAuthFixture fixture(settings);
  const std::string client = fixture.register_client();
  const std::string mcp = std::string(kPublicUrl) + "/mcp";
  const Issued carol = issued(fixture.redeem(fixture.seed_code(client, mcp, "mcp", "https://issuer.example#carol", "carol@team.example")));
  CHECK(std::holds_alternative<SignedInUser>(fixture.authenticate(carol.access_token)));
  // The same database under a daemon whose allowlist no longer has team.example.
  settings.allowed_domains.clear();
  settings.state_dir = fixture.state_dir();
  AuthorizationServer stricter(settings, fixture.store(), fixture.logger(), [&] { return fixture.now(); });
  const AuthFailure removed = std::get<AuthFailure>(
      stricter.authenticate({"POST", "/mcp", "", {{"authorization", "Bearer " + carol.access_token}}, ""}));
  CHECK(removed.status == 401);
  CHECK(removed.www_authenticate.find("error=\"invalid_token\"") != std::string::npos);
  CHECK(removed.message.find("not allowed") != std::string::npos);
  const HttpReply refused =
      stricter.handle({"POST",
                       "/oauth/token",
                       "",
                       {{"content-type", "application/x-www-form-urlencoded"}},
                       kg::net::form_encode({{"grant_type", "refresh_token"},
                                             {"refresh_token", carol.refresh_token},
                                             {"client_id", client}})});
  CHECK(oauth_error_of(refused) == "invalid_grant");
}

TEST_CASE("the token endpoint answers RFC 6749 errors for malformed requests") {
  OAuthFixture fixture;
  auto error_of = [&](const HttpExchange& request) {
    const HttpReply reply = fixture.server().handle(request);
    INFO(reply.body);
    CHECK(reply.content_type == "application/json");
    CHECK(header_of(reply, "Cache-Control") == "no-store");
    return std::pair(reply.status, oauth_error_of(reply));
  };
  const std::map<std::string, std::string> form = {{"content-type", "application/x-www-form-urlencoded"}};
  CHECK(error_of({"POST", "/oauth/token", "", form, "grant_type=password&client_id=c"}) == std::pair(400, std::string("unsupported_grant_type")));
  CHECK(error_of({"POST", "/oauth/token", "", {{"content-type", "application/json"}}, "{}"}) == std::pair(400, std::string("invalid_request")));
  CHECK(error_of({"POST", "/oauth/token", "", form, "grant_type=refresh_token"}) == std::pair(400, std::string("invalid_request")));
  CHECK(error_of({"POST", "/oauth/token", "", form, "grant_type=refresh_token&client_id=c&client_id=d"}) == std::pair(400, std::string("invalid_request")));
  CHECK(error_of({"POST", "/oauth/token", "", form, "grant_type=authorization_code&client_id=c&code=%zz"}) == std::pair(400, std::string("invalid_request")));
  const HttpReply get = fixture.server().handle({"GET", "/oauth/token", "", {}, ""});
  CHECK(get.status == 405);
  CHECK(header_of(get, "Allow") == "POST");
}
