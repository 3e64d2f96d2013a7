// CallCredentials: the configured plugin asked per call, every grant recorded (never the
// token), and the status when no plugin is configured, none is loaded, or it fails.
#include <doctest/doctest.h>

#include <stdexcept>

#include "../../support/temp_dir.hpp"
#include "call_credentials.hpp"
#include "error_chain.hpp"
#include "../../support/test_loggers.hpp"

using kg::plugin::CredentialMode;
using kg::session::CallCredentials;
using kg::session::CredentialsUnavailableError;

namespace {

// A credential plugin whose answers the test sets.
class ScriptedPlugin final : public kg::plugin::CredentialsPlugin {
 public:
  kg::plugin::Identity identity() override {
    kg::plugin::Identity id;
    id.mode = CredentialMode::access_token;
    id.email = "dev@example.com";
    return id;
  }
  std::optional<kg::plugin::RunCredentials> credentials_for_run(const kg::plugin::RunContext& run) override {
    asked.push_back(run.session_id + "/" + std::to_string(run.call_id));
    if (!failure.empty()) throw kg::plugin::CredentialsError(failure);
    if (!has_credentials) return std::nullopt;
    kg::plugin::RunCredentials out;
    out.token = {"ya29.secret-token", "2026-12-03T10:00:00Z", "dev@example.com", "p", ""};
    out.scopes = {"https://www.googleapis.com/auth/cloud-platform", "openid"};
    out.identity = "dev@example.com";
    out.credential_type = "authorized_user";
    return out;
  }
  std::vector<std::string> asked;
  std::string failure;
  bool has_credentials = true;
};

struct Fixture {
  kg::test::TempDir dir{"kg-call-credentials-"};
  kg::store::Store store{dir / "kg.db"};
  kg::test::NullLogger logger;
  std::int64_t call(const std::string& session) {
    if (!store.find_session(session)) {
      kg::store::SessionRecord record;
      record.id = session;
      record.client = "test";
      record.provider = "local";
      record.runtime = "compiled-go";
      store.insert_session(record);
    }
    kg::store::CallStart start;
    start.session_id = session;
    start.runtime = "compiled-go";
    start.code_sha256 = std::string(64, 'a');
    return store.begin_call(start);
  }
};

}  // namespace

TEST_CASE("each call asks the plugin and records the grant, never the token") {
  Fixture f;
  ScriptedPlugin plugin;
  CallCredentials credentials("creds-adc", &plugin, "", f.store, f.logger);
  CHECK(credentials.active());
  const auto first = f.call("s-1");
  const auto got = credentials.for_call("s-1", first);
  REQUIRE(got.has_value());
  CHECK(got->token.access_token == "ya29.secret-token");
  const auto second = f.call("s-1");
  credentials.for_call("s-1", second);
  CHECK(plugin.asked == std::vector<std::string>{"s-1/" + std::to_string(first), "s-1/" + std::to_string(second)});
  const auto grants = f.store.list_grants("s-1");
  REQUIRE(grants.size() == 2);
  CHECK(grants[0].plugin == "creds-adc");
  CHECK(grants[0].mode == "access-token");
  CHECK(grants[0].identity == "dev@example.com");
  CHECK(grants[0].credential_type == "authorized_user");
  CHECK(grants[0].scopes == "https://www.googleapis.com/auth/cloud-platform openid");
  CHECK(grants[0].expires_at == "2026-12-03T10:00:00Z");
  CHECK(f.store.find_session("s-1")->identity == "dev@example.com");

  plugin.has_credentials = false;  // e.g. no ADC: the call goes without, nothing recorded
  CHECK_FALSE(credentials.for_call("s-1", f.call("s-1")).has_value());
  CHECK(f.store.list_grants("s-1").size() == 2);
}

TEST_CASE("a plugin's failure is CredentialsUnavailableError with the plugin's cause") {
  Fixture f;
  ScriptedPlugin plugin;
  plugin.failure = "https://oauth2.googleapis.com/token answered HTTP 400: invalid_grant";
  CallCredentials credentials("creds-adc", &plugin, "", f.store, f.logger);
  try {
    credentials.for_call("s-1", f.call("s-1"));
    FAIL("no error");
  } catch (const CredentialsUnavailableError& e) {
    CHECK(kg::describe_error_chain(e) ==
          "No Google credentials for this call (creds-adc; `kode-gopher auth status` shows the "
          "identity): https://oauth2.googleapis.com/token answered HTTP 400: invalid_grant");
  }
  CHECK(f.store.list_grants("s-1").empty());
}

TEST_CASE("status: the plugin's identity, or none with why and what to do") {
  Fixture f;
  ScriptedPlugin plugin;
  const auto ready = CallCredentials("creds-adc", &plugin, "", f.store, f.logger).status();
  CHECK(ready.plugin == "creds-adc");
  CHECK(ready.plugin_loaded);
  CHECK(ready.identity.email == "dev@example.com");

  CallCredentials none("none", nullptr, "", f.store, f.logger);
  CHECK_FALSE(none.active());
  CHECK_FALSE(none.for_call("s-1", f.call("s-1")).has_value());
  const auto off = none.status();
  CHECK(off.identity.mode == CredentialMode::none);
  CHECK(off.identity.problem.find("[credentials] plugin = none") != std::string::npos);
  CHECK(off.identity.login_hint.find("creds-adc") != std::string::npos);

  const auto missing =
      CallCredentials("creds-workload", nullptr, "it was not found", f.store, f.logger).status();
  CHECK_FALSE(missing.plugin_loaded);
  CHECK(missing.identity.mode == CredentialMode::none);
  CHECK(missing.identity.problem == "The credential plugin creds-workload is not loaded (it was "
                                    "not found), so programs run without Google credentials");
  CHECK(missing.identity.login_hint.find("-Dplugin_creds_workload=enabled") != std::string::npos);
}
