// creds-adc against Google's endpoints played on loopback (tests/support/loopback_google):
// each grant as Google checks it, impersonation, the token cache, and every way it can fail.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "adc_credentials.hpp"
#include "creds_test_support.hpp"
#include "utc_time.hpp"

using kg::creds_adc::AdcCredentials;
using kg::plugin::CredentialMode;
using kg::plugin::CredentialsError;
using kg::plugin::RunContext;
using namespace kg::test;

namespace {

std::string error_of(AdcCredentials& adc) {
  try {
    adc.credentials_for_run(RunContext{"s1", 1});
  } catch (const CredentialsError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("authorized_user: the refresh grant on the host, the email from tokeninfo, all cached") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
  write_text(home.gcloud() + "/configurations/config_default", "[core]\naccount = dev@example.com\nproject = gcloud-proj\n");
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  kg::test::RecordingLogger logger;
  AdcCredentials adc(settings, home.environment(), logger);

  const auto id = adc.identity();
  CHECK(id.mode == CredentialMode::sealed);  // the default
  CHECK(id.credential_type == "authorized_user");
  CHECK(id.email == google.user_email);
  CHECK(id.project_id == "gcloud-proj");
  CHECK(id.quota_project_id == "quota-proj");
  CHECK(id.problem.empty());
  CHECK(contains(id.source, home.well_known_adc()));
  CHECK_FALSE(id.token_expiry_rfc3339.empty());

  const auto run = adc.credentials_for_run(RunContext{"s1", 1});
  REQUIRE(run.has_value());
  CHECK(google.subject_of(run->token.access_token) == google.user_email);
  CHECK(run->token.email == google.user_email);
  CHECK(run->token.project == "gcloud-proj");
  CHECK(run->token.quota_project == "quota-proj");
  CHECK(run->identity == google.user_email);
  CHECK(run->credential_type == "authorized_user");
  CHECK(std::find(run->scopes.begin(), run->scopes.end(),
                  "https://www.googleapis.com/auth/cloud-platform") != run->scopes.end());
  CHECK(run->files.empty());  // the ADC file itself stays on the host
  CHECK(run->env.empty());
  const auto expiry = kg::utc::parse_rfc3339(run->token.expiry_rfc3339);
  REQUIRE(expiry.has_value());
  CHECK(*expiry > std::chrono::system_clock::now() + std::chrono::minutes(55));

  // One refresh and one email lookup serve the status and every later run.
  const auto again = adc.credentials_for_run(RunContext{"s1", 2});
  CHECK(again->token.access_token == run->token.access_token);
  CHECK(google.requests("POST /token") == 1);
  CHECK(google.requests("GET /tokeninfo") == 1);
}

TEST_CASE("a refused refresh token names the endpoint's words and how to log in again") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, "1//revoked"));
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  kg::test::RecordingLogger logger;
  AdcCredentials adc(settings, home.environment(), logger);
  const std::string error = error_of(adc);
  CHECK(contains(error, google.token_url() + " answered HTTP 400: invalid_grant: Token has been expired or revoked."));
  CHECK(contains(error, "gcloud auth application-default login"));
  CHECK(contains(error, home.well_known_adc()));
  CHECK_FALSE(contains(error, "1//revoked"));  // never the secret
  const auto id = adc.identity();
  CHECK(id.mode == CredentialMode::sealed);  // the default
  CHECK(contains(id.problem, "invalid_grant"));
  CHECK(contains(id.login_hint, "gcloud auth application-default login"));
}

TEST_CASE("service_account: an RS256 JWT signed with the key, for the file's token_uri and the scopes") {
  LoopbackGoogle google;
  const auto key = make_test_rsa_key();
  google.service_account_public_key_pem = key.public_pem;
  FakeHome home;
  const std::string path = home.dir / "sa.json";
  write_text(path, service_account_json(google, key.private_pem));
  auto env = home.environment();
  env.google_application_credentials = path;
  kg::test::RecordingLogger logger;
  AdcCredentials adc(loopback_settings(google), env, logger);

  const auto run = adc.credentials_for_run(RunContext{"s1", 1});
  REQUIRE(run.has_value());
  CHECK(google.subject_of(run->token.access_token) == google.service_account_email);
  CHECK(run->token.email == google.service_account_email);
  CHECK(run->token.project == "sa-project");
  CHECK(run->scopes == std::vector<std::string>{"https://www.googleapis.com/auth/cloud-platform"});
  const auto id = adc.identity();
  CHECK(id.credential_type == "service_account");
  CHECK(contains(id.source, "GOOGLE_APPLICATION_CREDENTIALS"));
  CHECK(google.requests("GET /tokeninfo") == 0);  // the key file names the email

  SUBCASE("signed with another key: the endpoint's refusal, and what to do") {
    google.service_account_public_key_pem = make_test_rsa_key().public_pem;
    auto settings = loopback_settings(google);
    settings.scopes = {"https://www.googleapis.com/auth/devstorage.read_only"};  // a new identity
    google.expected_scope = "https://www.googleapis.com/auth/devstorage.read_only";
    AdcCredentials other(settings, env, logger);
    const std::string error = error_of(other);
    CHECK(contains(error, "answered HTTP 400: invalid_grant: Invalid JWT Signature."));
    CHECK(contains(error, "download a new key file"));
  }
  SUBCASE("another scope than the endpoint expects is refused: the JWT carries the scopes") {
    auto settings = loopback_settings(google);
    settings.scopes = {"https://www.googleapis.com/auth/bigquery"};
    AdcCredentials other(settings, env, logger);
    CHECK(contains(error_of(other), "invalid_scope: Unexpected scope: https://www.googleapis.com/auth/bigquery"));
  }
}

TEST_CASE("impersonated_service_account files and configured impersonation go through IAM Credentials") {
  LoopbackGoogle google;
  FakeHome home;
  const std::string target = google.impersonable[0];
  kg::test::RecordingLogger logger;
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();

  SUBCASE("a file made by gcloud --impersonate-service-account") {
    write_text(home.well_known_adc(),
               R"({"type": "impersonated_service_account", "delegates": [],
  "service_account_impersonation_url": "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/)" +
                   target + R"(:generateAccessToken",
  "source_credentials": )" + authorized_user_json(google, google.refresh_token) + "}");
    AdcCredentials adc(settings, home.environment(), logger);
    const auto run = adc.credentials_for_run(RunContext{"s1", 1});
    REQUIRE(run.has_value());
    CHECK(google.subject_of(run->token.access_token) == target);
    CHECK(run->token.email == target);
    CHECK(run->credential_type == "impersonated_service_account");
    CHECK(google.requests("POST /v1/projects/-/serviceAccounts/" + target + ":generateAccessToken") == 1);
    CHECK(contains(google.last_iam_body(), R"("lifetime":"3600s")"));
  }
  SUBCASE("[creds-adc] impersonate_service_account on top of the user's ADC") {
    write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
    settings.impersonate = {target};
    AdcCredentials adc(settings, home.environment(), logger);
    const auto id = adc.identity();
    CHECK(id.credential_type == "impersonated_service_account");
    CHECK(id.email == target);
    const auto run = adc.credentials_for_run(RunContext{"s1", 1});
    CHECK(google.subject_of(run->token.access_token) == target);
  }
  SUBCASE("a service account the source may not impersonate: the 403 and the role it needs") {
    write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
    settings.impersonate = {"other@test-project.iam.gserviceaccount.com"};
    AdcCredentials adc(settings, home.environment(), logger);
    const std::string error = error_of(adc);
    CHECK(contains(error, "answered HTTP 403: PERMISSION_DENIED: Permission 'iam.serviceAccounts.getAccessToken' denied"));
    CHECK(contains(error, "roles/iam.serviceAccountTokenCreator"));
  }
}

TEST_CASE("no ADC at all is mode none with the way to log in; runs go without") {
  FakeHome home;
  kg::test::RecordingLogger logger;
  AdcCredentials adc({}, home.environment(), logger);
  const auto id = adc.identity();
  CHECK(id.mode == CredentialMode::none);
  CHECK(contains(id.problem, "GOOGLE_APPLICATION_CREDENTIALS is not set and " + home.well_known_adc() + " (gcloud's well-known file) does not exist"));
  CHECK(contains(id.login_hint, "run `gcloud auth application-default login` as tester"));
  CHECK(contains(id.login_hint, "GOOGLE_APPLICATION_CREDENTIALS"));
  CHECK(contains(id.login_hint, "[creds-adc] adc_file"));
  CHECK_FALSE(adc.credentials_for_run(RunContext{"s1", 1}).has_value());

  SUBCASE("CLOUDSDK_CONFIG moves the well-known file, as for gcloud") {
    auto env = home.environment();
    env.cloudsdk_config = home.dir / "elsewhere";
    AdcCredentials moved({}, env, logger);
    CHECK(contains(moved.identity().problem, home.dir / "elsewhere/application_default_credentials.json"));
  }
}

TEST_CASE("a named credentials file that is missing or malformed is an error naming it") {
  FakeHome home;
  kg::test::RecordingLogger logger;
  auto env = home.environment();
  env.google_application_credentials = home.dir / "nope.json";
  AdcCredentials missing({}, env, logger);
  CHECK(contains(error_of(missing), "GOOGLE_APPLICATION_CREDENTIALS names " + home.dir / "nope.json" + ", which does not exist"));
  CHECK(missing.identity().mode == CredentialMode::none);

  write_text(home.well_known_adc(), "{\n  \"type\": \"authorized_user\",\n  \"client_id\": oops\n}");
  AdcCredentials malformed({}, home.environment(), logger);
  const std::string error = error_of(malformed);
  CHECK(contains(error, "The credentials file " + home.well_known_adc() + " (from gcloud's well-known file) is not valid JSON: Invalid value. (line 3, column 16)"));
  const auto id = malformed.identity();
  CHECK(id.mode == CredentialMode::none);
  CHECK(contains(id.problem, "is not valid JSON"));

  write_text(home.well_known_adc(), R"({"type": "authorized_user", "client_id": "a", "client_secret": "b"})");
  AdcCredentials incomplete({}, home.environment(), logger);
  CHECK(contains(error_of(incomplete), "(type authorized_user) has no \"refresh_token\"; log in again with `gcloud auth application-default login`"));

  write_text(home.well_known_adc(), R"({"type": "external_account", "audience": "x"})");
  AdcCredentials external({}, home.environment(), logger);
  CHECK(contains(error_of(external), "has type \"external_account\"; creds-adc mints tokens for authorized_user, service_account and impersonated_service_account"));
}

TEST_CASE("a failing or unreachable token endpoint is an error naming it") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
  kg::test::RecordingLogger logger;
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  google.fail_with_status = 503;
  AdcCredentials adc(settings, home.environment(), logger);
  CHECK(contains(error_of(adc), "Refreshing the user's access token: " + google.token_url() +
                                    " answered HTTP 503: <html>the endpoint is down</html>"));

  settings.token_url = "http://127.0.0.1:1/token";
  AdcCredentials unreachable(settings, home.environment(), logger);
  CHECK(contains(error_of(unreachable), "Refreshing the user's access token: cannot reach http://127.0.0.1:1/token: "));
}

TEST_CASE("tokens are kept until five minutes before they expire, then refreshed; short-lived ones refused") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  kg::test::RecordingLogger logger;
  auto now = std::make_shared<std::atomic<std::int64_t>>(0);  // seconds added to the real clock
  AdcCredentials adc(settings, home.environment(), logger, [now] {
    return std::chrono::system_clock::now() + std::chrono::seconds(now->load());
  });
  const auto first = adc.credentials_for_run(RunContext{"s", 1});
  *now = 54 * 60;  // 5 min 59 s left: still served
  CHECK(adc.credentials_for_run(RunContext{"s", 2})->token.access_token == first->token.access_token);
  *now = 55 * 60;  // 4 min 59 s left: refreshed
  const auto second = adc.credentials_for_run(RunContext{"s", 3});
  CHECK(second->token.access_token != first->token.access_token);
  CHECK(google.requests("POST /token") == 2);

  *now = 0;
  google.expires_in = 120;
  settings.scopes = {"https://www.googleapis.com/auth/cloud-platform", "openid"};  // a new identity
  AdcCredentials short_lived(settings, home.environment(), logger);
  CHECK(contains(error_of(short_lived), "the new access token is valid for only 120 s"));
  google.expires_in = 0;
  CHECK(contains(error_of(short_lived), "answered a token that has already expired"));
}

TEST_CASE("concurrent runs of one identity share one refresh") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  kg::test::RecordingLogger logger;
  AdcCredentials adc(settings, home.environment(), logger);
  std::vector<std::thread> threads;
  std::vector<std::string> tokens(6);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] { tokens[i] = adc.credentials_for_run(RunContext{"s", 1})->token.access_token; });
  }
  for (auto& t : threads) t.join();
  CHECK(google.requests("POST /token") == 1);
  for (const auto& t : tokens) CHECK(t == tokens[0]);
}

TEST_CASE("copy_adc_file opts in to mode forwarded: the file itself reaches the program") {
  LoopbackGoogle google;
  FakeHome home;
  const std::string adc_text = authorized_user_json(google, google.refresh_token);
  write_text(home.well_known_adc(), adc_text);
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  settings.copy_adc_file = true;
  kg::test::RecordingLogger logger;
  AdcCredentials adc(settings, home.environment(), logger);
  CHECK(adc.identity().mode == CredentialMode::forwarded);
  const auto run = adc.credentials_for_run(RunContext{"s", 1});
  REQUIRE(run->files.size() == 1);
  CHECK(run->files[0].path == kg::creds_adc::kForwardedAdcPath);
  CHECK(run->files[0].content == adc_text);
  CHECK(run->env == std::vector<std::pair<std::string, std::string>>{
                        {"GOOGLE_APPLICATION_CREDENTIALS",
                         "/app/.kode-gopher/credentials/application_default_credentials.json"}});
}

TEST_CASE("[creds-adc] settings: defaults, overrides and errors naming the key") {
  using kg::creds_adc::read_adc_settings;
  std::map<std::string, std::string> values;
  auto lookup = [&](std::string_view key) -> std::optional<std::string> {
    auto it = values.find(std::string(key));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  const auto defaults = read_adc_settings(lookup);
  CHECK(defaults.scopes == std::vector<std::string>{"https://www.googleapis.com/auth/cloud-platform"});
  CHECK(defaults.tokeninfo_url == "https://oauth2.googleapis.com/tokeninfo");
  CHECK_FALSE(defaults.copy_adc_file);
  CHECK(defaults.sealed);  // mode sealed is the default
  values = {{"creds-adc.mode", "access-token"}};
  CHECK_FALSE(read_adc_settings(lookup).sealed);
  values = {{"creds-adc.mode", "open"}};
  CHECK_THROWS_WITH(read_adc_settings(lookup), "[creds-adc] mode must be sealed or access-token, got \"open\" (copy_adc_file = true gives mode forwarded)");
  values = {{"creds-adc.mode", "sealed"}, {"creds-adc.copy_adc_file", "true"}};
  CHECK_THROWS_WITH(read_adc_settings(lookup), "[creds-adc] mode = sealed cannot be combined with copy_adc_file = true, which hands the ADC file itself to the sandbox; drop one");
  values = {{"creds-adc.impersonate_service_account", "a@p.iam.gserviceaccount.com, b@p.iam.gserviceaccount.com"},
            {"creds-adc.token_url", "http://127.0.0.1:9/token/"},
            {"creds-adc.copy_adc_file", "true"}};
  const auto set = read_adc_settings(lookup);
  CHECK(set.impersonate.size() == 2);
  CHECK(set.token_url == "http://127.0.0.1:9/token");
  CHECK(set.copy_adc_file);
  values = {{"creds-adc.copy_adc_file", "yes"}};
  CHECK_THROWS_WITH(read_adc_settings(lookup), "[creds-adc] copy_adc_file must be true or false, got \"yes\"");
  values = {{"creds-adc.token_url", "oauth2.googleapis.com"}};
  CHECK_THROWS_WITH(read_adc_settings(lookup), "[creds-adc] token_url must be an http:// or https:// URL, got \"oauth2.googleapis.com\"");
  values = {{"creds-adc.adc_file", "relative.json"}};
  CHECK_THROWS_WITH(read_adc_settings(lookup), "[creds-adc] adc_file must be an absolute path, got \"relative.json\"");
}

TEST_CASE("a failing email lookup is logged without the token it carried") {
  LoopbackGoogle google;
  FakeHome home;
  write_text(home.well_known_adc(), authorized_user_json(google, google.refresh_token));
  auto settings = loopback_settings(google);
  settings.token_url = google.token_url();
  settings.tokeninfo_url = google.base_url() + "/no-tokeninfo";
  settings.userinfo_url = "http://127.0.0.1:1/userinfo";
  kg::test::RecordingLogger logger;
  AdcCredentials adc(settings, home.environment(), logger);
  const auto run = adc.credentials_for_run(RunContext{"s", 1});
  REQUIRE(run.has_value());
  CHECK(run->token.email.empty());
  CHECK(run->identity == "authorized_user from " + home.well_known_adc());
  bool logged = false;
  for (const auto& line : logger.lines()) {
    CHECK(line.find(run->token.access_token) == std::string::npos);
    logged = logged || line.find("the user's email is unknown") != std::string::npos;
  }
  CHECK(logged);
}
