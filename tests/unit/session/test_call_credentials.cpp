// CallCredentials: the configured plugin asked per call, every grant recorded (never the
// token), and the status when no plugin is configured, none is loaded, or it fails; and team
// mode's owner credentials (run_as = user), sealed by default.
#include <doctest/doctest.h>

#include <stdexcept>

#include "../../support/temp_dir.hpp"
#include "call_credentials.hpp"
#include "sealed_credentials.hpp"
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
  CHECK_FALSE(missing.signed_in_users.has_value());  // not team mode with run_as = user
}

// Team mode, run_as = user: the daemon's status says that signed-in users' calls run as their
// own identity, and in which mode, beside the plugin's (here none) for calls without a user.
TEST_CASE("status in team mode with run_as = user names the signed-in users' mode") {
  Fixture f;
  CallCredentials credentials("none", nullptr, "", f.store, f.logger);
  const auto source = [](const std::string&) { return kg::plugin::RunCredentials{}; };
  credentials.use_owner_credentials({source, CredentialMode::sealed});
  const auto sealed = credentials.status();
  CHECK(sealed.identity.mode == CredentialMode::none);
  REQUIRE(sealed.signed_in_users.has_value());
  CHECK(*sealed.signed_in_users == CredentialMode::sealed);

  credentials.use_owner_credentials({source, CredentialMode::access_token});
  CHECK(credentials.status().signed_in_users == CredentialMode::access_token);

  credentials.use_owner_credentials({});  // team mode stopped
  CHECK_FALSE(credentials.status().signed_in_users.has_value());
}

// Team mode, run_as = user: an owned session's call gets its user's own token in the owner
// credentials' mode, sealed unless user_token_mode = access-token, and is recorded as such.
TEST_CASE("an owner's call runs with the owner's token, sealed by default") {
  Fixture f;
  ScriptedPlugin plugin;
  CallCredentials credentials("creds-adc", &plugin, "", f.store, f.logger);
  credentials.set_sealed_note("programs hold only a placeholder token");
  std::vector<std::string> owners;
  const auto source = [&owners](const std::string& owner) {
    owners.push_back(owner);
    kg::plugin::RunCredentials out;
    out.mode = CredentialMode::access_token;  // what upstream_credentials() answers
    out.token = {"ya29.token-of-" + owner, "2026-12-03T10:00:00Z", owner + "@example.com", "", ""};
    out.identity = owner + "@example.com";
    out.credential_type = "authorized_user";
    return out;
  };
  credentials.use_owner_credentials({source, CredentialMode::sealed});

  auto got = credentials.for_call("s-1", f.call("s-1"), "alice");
  REQUIRE(got.has_value());
  CHECK(got->mode == CredentialMode::sealed);
  CHECK(got->token.access_token == "ya29.token-of-alice");
  CHECK(plugin.asked.empty());  // the plugin's identity is not used for an owned session
  // The session layer's one seam: the sandbox gets a placeholder, the proxy the real token.
  const auto sealed = kg::session::seal_for_sandbox(got);
  REQUIRE(sealed.has_value());
  CHECK(sealed->access_token == "ya29.token-of-alice");
  CHECK(got->token.access_token == sealed->placeholder);
  CHECK(got->token.access_token.starts_with("kg-sealed."));
  const auto grants = f.store.list_grants("s-1");
  REQUIRE(grants.size() == 1);
  CHECK(grants[0].plugin == "team-user");
  CHECK(grants[0].mode == "sealed");
  CHECK(grants[0].identity == "alice@example.com");

  // A session without an owner still asks the plugin.
  CHECK(credentials.for_call("s-2", f.call("s-2"))->token.access_token == "ya29.secret-token");
  CHECK(plugin.asked.size() == 1);

  const auto status = credentials.owner_status("alice@example.com", "https://issuer.example");
  CHECK(status.plugin == "team-user");
  CHECK(status.identity.mode == CredentialMode::sealed);
  CHECK(status.identity.email == "alice@example.com");
  CHECK(status.identity.source.find("https://issuer.example") != std::string::npos);
  CHECK(status.sealed == "programs hold only a placeholder token");
  CHECK(status.program_holds.empty());

  // The explicit opt-in: the sandbox gets the user's token itself.
  credentials.use_owner_credentials({source, CredentialMode::access_token});
  auto plain = credentials.for_call("s-3", f.call("s-3"), "bob");
  REQUIRE(plain.has_value());
  CHECK(plain->mode == CredentialMode::access_token);
  CHECK_FALSE(kg::session::seal_for_sandbox(plain).has_value());
  CHECK(plain->token.access_token == "ya29.token-of-bob");
  CHECK(f.store.list_grants("s-3")[0].mode == "access-token");
  const auto plain_status = credentials.owner_status("bob@example.com", "https://issuer.example");
  CHECK(plain_status.identity.mode == CredentialMode::access_token);
  CHECK(plain_status.sealed.empty());
  CHECK(plain_status.program_holds == kg::session::unsealed_mode_note(CredentialMode::access_token));
  CHECK(owners == std::vector<std::string>{"alice", "bob"});
}

// What a program holds is said for every mode with credentials: sealed by sealed_mode_note,
// the others here, each naming the real token and where it can be used.
TEST_CASE("each unsealed mode says what a program holds and where it can use it") {
  using kg::session::unsealed_mode_note;
  const std::string access = unsealed_mode_note(CredentialMode::access_token);
  CHECK(access.starts_with("programs hold the real access token (about an hour)"));
  CHECK(access.find("anywhere it can reach") != std::string::npos);
  CHECK(unsealed_mode_note(CredentialMode::workload).find("the daemon's own identity") !=
        std::string::npos);
  const std::string forwarded = unsealed_mode_note(CredentialMode::forwarded);
  CHECK(forwarded.find("a copy of the ADC file") != std::string::npos);
  CHECK(forwarded.find("mint new tokens") != std::string::npos);
  CHECK(unsealed_mode_note(CredentialMode::sealed).empty());
  CHECK(unsealed_mode_note(CredentialMode::none).empty());
}
