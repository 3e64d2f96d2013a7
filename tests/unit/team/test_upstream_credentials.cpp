// upstream_credentials(): the user's sealed upstream token for run_as = user, without a provider
// (the refresh through a real one is tests/team's): a fresh token is opened and handed out, an
// expiring one needs the refresh token, and a sealed value moved to another user does not open.
#include "oauth_test_fixture.hpp"
#include "token_sealer.hpp"

using namespace kg::team;
namespace plugin = kg::plugin;
namespace store = kg::store;
using namespace kg::team::test;

namespace {

void seed_sealed_user(OAuthFixture& fixture, const std::string& user_id, const std::string& email,
                      const std::string& access_token, std::int64_t expires_in,
                      const std::string& refresh_token, const std::string& sealed_for = "") {
  const oauth::TokenSealer sealer(fixture.state_dir());
  const std::string owner = sealed_for.empty() ? user_id : sealed_for;
  store::OAuthUserRecord user;
  user.user_id = user_id;
  user.email = email;
  user.sealed_access_token = sealer.seal(access_token, owner + " access");
  if (!refresh_token.empty()) user.sealed_refresh_token = sealer.seal(refresh_token, owner + " refresh");
  user.access_token_expires = fixture.now() + expires_in;
  user.scopes = "openid email https://www.googleapis.com/auth/cloud-platform";
  user.updated_at = fixture.now();
  fixture.store().save_oauth_user(user);
}

}  // namespace

TEST_CASE("a user's upstream token with more than five minutes left is handed out as is") {
  OAuthFixture fixture;
  seed_sealed_user(fixture, kAliceId, "alice@example.com", "ya29.alice", 301, "1//refresh");
  const plugin::RunCredentials credentials = fixture.server().upstream_credentials(kAliceId);
  CHECK(credentials.mode == plugin::CredentialMode::access_token);
  CHECK(credentials.token.access_token == "ya29.alice");
  CHECK(credentials.token.email == "alice@example.com");
  CHECK(credentials.token.expiry_rfc3339 == "2027-01-15T08:05:01Z");  // 1'800'000'000 + 301
  CHECK(credentials.identity == "alice@example.com");
  CHECK(credentials.scopes == std::vector<std::string>{"openid", "email", "https://www.googleapis.com/auth/cloud-platform"});
}

TEST_CASE("an expiring upstream token needs a refresh; failures say to sign in again") {
  OAuthFixture fixture;
  seed_sealed_user(fixture, kAliceId, "alice@example.com", "ya29.alice", 299, "");
  CHECK_THROWS_WITH_AS(fixture.server().upstream_credentials(kAliceId),
                       doctest::Contains("no refresh token"), plugin::CredentialsError);
  // With a refresh token, the provider is asked (nothing listens at this issuer).
  seed_sealed_user(fixture, kAliceId, "alice@example.com", "ya29.alice", 299, "1//refresh");
  CHECK_THROWS_WITH_AS(fixture.server().upstream_credentials(kAliceId),
                       doctest::Contains("cannot reach http://127.0.0.1:9"), plugin::CredentialsError);
  CHECK_THROWS_WITH_AS(fixture.server().upstream_credentials("https://issuer.example#nobody"),
                       doctest::Contains("has not signed in"), plugin::CredentialsError);
}

TEST_CASE("a sealed token copied into another user's row does not open") {
  OAuthFixture fixture;
  seed_sealed_user(fixture, "https://issuer.example#mallory", "mallory@team.example", "ya29.alice",
                   3600, "", kAliceId);
  CHECK_THROWS_WITH_AS(fixture.server().upstream_credentials("https://issuer.example#mallory"),
                       doctest::Contains("does not open"), plugin::CredentialsError);
}
