// creds-workload against a metadata server played on loopback: token, email and project as the
// daemon's workload identity, GCE_METADATA_HOST honoured, failures named.
#include <doctest/doctest.h>

#include "creds_test_support.hpp"
#include "workload_credentials.hpp"

using kg::creds_workload::read_workload_settings;
using kg::creds_workload::WorkloadCredentials;
using kg::creds_workload::WorkloadSettings;
using kg::plugin::CredentialMode;
using kg::plugin::CredentialsError;
using kg::plugin::RunContext;
using namespace kg::test;

namespace {

WorkloadSettings settings_for(const std::string& host) {
  std::map<std::string, std::string> env = {{"GCE_METADATA_HOST", host}};
  return read_workload_settings([](std::string_view) { return std::nullopt; },
                                [env](const char* name) -> std::optional<std::string> {
                                  auto it = env.find(name);
                                  if (it == env.end()) return std::nullopt;
                                  return it->second;
                                });
}

}  // namespace

TEST_CASE("creds-workload: the metadata server's token, email and project (GCE_METADATA_HOST)") {
  LoopbackGoogle google;
  kg::test::RecordingLogger logger;
  WorkloadCredentials workload(settings_for(google.metadata_host()), logger);
  const auto id = workload.identity();
  CHECK(id.mode == CredentialMode::sealed);  // the default
  CHECK(id.credential_type == "gce_metadata");
  CHECK(id.email == google.metadata_email);
  CHECK(id.project_id == google.metadata_project);
  CHECK(id.problem.empty());
  CHECK(id.source == "metadata server " + google.metadata_host());

  const auto run = workload.credentials_for_run(RunContext{"s", 1});
  REQUIRE(run.has_value());
  CHECK(google.subject_of(run->token.access_token) == google.metadata_email);
  CHECK(run->token.email == google.metadata_email);
  CHECK(run->token.project == google.metadata_project);
  CHECK(run->identity == google.metadata_email);
  // One token (cached from the status check), one email lookup.
  CHECK(google.requests("GET /computeMetadata/v1/instance/service-accounts/default/token") == 1);
  CHECK(google.requests("GET /computeMetadata/v1/instance/service-accounts/default/email") == 1);
}

TEST_CASE("creds-workload: no metadata server, or a failing one, is named with what to do") {
  kg::test::RecordingLogger logger;
  WorkloadCredentials nowhere(settings_for("127.0.0.1:1"), logger);
  const auto id = nowhere.identity();
  CHECK(id.mode == CredentialMode::sealed);  // the default
  CHECK(id.problem.find("cannot reach http://127.0.0.1:1/computeMetadata/v1/instance/service-accounts/default/token") != std::string::npos);
  CHECK(id.login_hint.find("[credentials] plugin = creds-adc") != std::string::npos);
  CHECK_THROWS_AS(nowhere.credentials_for_run(RunContext{"s", 1}), CredentialsError);

  LoopbackGoogle google;
  google.fail_with_status = 500;
  WorkloadCredentials failing(settings_for(google.metadata_host()), logger);
  try {
    failing.credentials_for_run(RunContext{"s", 1});
    FAIL("no error");
  } catch (const CredentialsError& e) {
    CHECK(std::string(e.what()).find("answered HTTP 500: unavailable") != std::string::npos);
  }
}

TEST_CASE("creds-workload settings: GCE_METADATA_HOST wins over the config; bad values named") {
  std::map<std::string, std::string> values = {{"creds-workload.metadata_host", "10.0.0.1"}};
  auto lookup = [&](std::string_view key) -> std::optional<std::string> {
    auto it = values.find(std::string(key));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  auto no_env = [](const char*) -> std::optional<std::string> { return std::nullopt; };
  CHECK(read_workload_settings(lookup, no_env).metadata_host == "10.0.0.1");
  CHECK(read_workload_settings([](std::string_view) { return std::nullopt; }, no_env).metadata_host == "169.254.169.254");
  CHECK(settings_for("127.0.0.1:8080").metadata_host == "127.0.0.1:8080");
  CHECK_THROWS_WITH(settings_for("http://x/"), doctest::Contains("must be host[:port] without a scheme or path"));
  values = {{"creds-workload.timeout_ms", "5"}};
  CHECK_THROWS_WITH(read_workload_settings(lookup, no_env),
                    "[creds-workload] timeout_ms must be an integer from 100 to 120000, got \"5\"");
}
