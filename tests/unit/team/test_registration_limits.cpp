// Open dynamic registration under a flood: at most [oauth] registrations_per_hour per client
// address (others are not affected), and a registration nobody starts a sign-in with is gone
// after ten minutes, while one a sign-in started with stays (docs/team-mode.md, "Slow and
// unknown clients"). The end-to-end flood over HTTP is tests/team/test_team_limits.cpp.
#include "oauth_test_fixture.hpp"

using namespace kg::team;
using namespace kg::team::test;

namespace {

HttpReply register_from(OAuthFixture& fixture, const std::string& address) {
  HttpExchange request{"POST", "/oauth/register", "", {{"content-type", "application/json"}},
                       R"({"client_name":"flood","redirect_uris":[")" + std::string(kRedirect) + R"("]})"};
  request.client_address = address;
  return fixture.server().handle(request);
}

HttpReply authorize(OAuthFixture& fixture, const std::string& client_id) {
  const std::string query = kg::net::form_encode(
      {{"response_type", "code"},
       {"client_id", client_id},
       {"redirect_uri", kRedirect},
       {"code_challenge", oauth::s256_challenge("a-verifier-of-enough-length-for-pkce-0123456789")},
       {"code_challenge_method", "S256"},
       {"state", "s"}});
  return fixture.server().handle({"GET", "/oauth/authorize", query, {}, ""});
}

bool unknown_client_page(const HttpReply& reply) {
  return reply.status == 400 && reply.body.find("Unknown client") != std::string::npos;
}

}  // namespace

TEST_CASE("one address registers at most registrations_per_hour clients; another is not held up") {
  OAuthSettings settings = OAuthFixture::default_settings();
  settings.registrations_per_hour = 5;
  OAuthFixture fixture(settings);
  for (int i = 0; i < 5; ++i) CHECK(register_from(fixture, "192.0.2.1").status == 201);
  const HttpReply refused = register_from(fixture, "192.0.2.1");
  CHECK(refused.status == 429);
  CHECK(std::stoi(header_of(refused, "Retry-After")) > 0);
  CHECK(std::stoi(header_of(refused, "Retry-After")) <= 720);  // one of 5 an hour comes back
  CHECK(std::string(parse_json(refused.body)["error_description"].GetString())
            .find("registrations_per_hour") != std::string::npos);
  CHECK(register_from(fixture, "192.0.2.2").status == 201);
  fixture.advance(720);
  CHECK(register_from(fixture, "192.0.2.1").status == 201);
}

TEST_CASE("a registration nobody starts a sign-in with is gone after ten minutes") {
  OAuthFixture fixture;
  const std::string idle = fixture.register_client();
  const std::string started = fixture.register_client();
  // The sign-in starts (the upstream provider is not reachable here: that part fails).
  CHECK_FALSE(unknown_client_page(authorize(fixture, started)));
  CHECK(fixture.store().find_oauth_client(started)->sign_in_started_at == fixture.now());
  fixture.advance(601);
  CHECK(unknown_client_page(authorize(fixture, idle)));      // refused before any purge
  CHECK_FALSE(unknown_client_page(authorize(fixture, started)));
  fixture.register_client();                                 // purges the idle one
  CHECK_FALSE(fixture.store().find_oauth_client(idle).has_value());
  CHECK(fixture.store().find_oauth_client(started).has_value());
}
