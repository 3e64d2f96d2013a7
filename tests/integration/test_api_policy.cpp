// The API policy through the real daemon (docs/api-policy.md): the [api_policy] keys, a call's
// api_policy narrowing them and refused when it would widen them, and the one outcome possible
// without sealed credentials: a call whose policy refuses anything is not run. The refusals of
// real requests need the sealed proxy; its tests check them.
#include <doctest/doctest.h>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::DaemonFixtureOptions;
using kg::test::json_string;

namespace {

const std::string kProgram = R"("code":"package main\nfunc main() {}\n")";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a call may narrow [api_policy], never widen it; without the egress proxy it is not run") {
  DaemonFixtureOptions options;
  options.extra_sections = "[api_policy]\nprojects = proj-a proj-b\n";
  // No network: no egress proxy reads the program's requests, so no policy can hold.
  options.extra_sandbox_keys = "network = none\n";
  DaemonFixture daemon(options);
  daemon.start();

  // A project the daemon does not list: refused before anything is recorded or started.
  const auto widening = daemon.post(
      "/v1/execute", "{" + kProgram + R"(,"api_policy":{"projects":["proj-a","proj-z"]}})");
  CHECK(widening.status == 400);
  auto answer = daemon.json(widening);
  CHECK(json_string(answer["error"], "code") == "invalid_input");
  CHECK(contains(json_string(answer["error"], "message"),
                 "api_policy.projects: proj-z is not in the daemon's [api_policy] projects "
                 "(proj-a, proj-b); a call may only narrow that list"));

  // A name that is not a project: the codec's 400.
  const auto malformed =
      daemon.post("/v1/execute", "{" + kProgram + R"(,"api_policy":{"buckets":["Bad Bucket"]}})");
  CHECK(malformed.status == 400);
  CHECK(json_string(daemon.json(malformed)["error"], "code") == "bad_request");

  // Within the daemon's list, or no api_policy at all: the daemon's policy holds, and with no
  // egress proxy to read requests (no credentials: network none) the call is not run.
  for (const std::string& policy : {std::string(R"(,"api_policy":{"projects":["proj-b"],"read_only":true})"),
                                    std::string()}) {
    const auto session = daemon.open_session();
    const auto refused = daemon.post("/v1/sessions/" + session + "/execute", "{" + kProgram + policy + "}");
    CHECK(refused.status == 400);
    answer = daemon.json(refused);
    CHECK(json_string(answer["error"], "code") == "invalid_input");
    CHECK(contains(json_string(answer["error"], "message"),
                   "holds only where kode-gopher's egress proxy reads a program's Google API "
                   "requests: local sandboxes with [sandbox] network = allowlist"));
    const auto listed = daemon.json(daemon.get("/v1/sessions/" + session));
    CHECK(listed["calls"].GetInt64() == 1);  // recorded, as rejected
    CHECK(listed["api_calls"].GetInt64() == 0);
    CHECK(listed["api_calls_refused"].GetInt64() == 0);
  }
  const auto stats = daemon.json(daemon.get("/v1/stats"));
  CHECK(stats["calls"]["by_status"]["rejected"].GetInt64() == 2);
  daemon.stop_gracefully();
}

TEST_CASE("without an [api_policy] and without a call's, calls run as before and list no api_calls") {
  DaemonFixture daemon;
  daemon.start();
  const auto result = daemon.json(daemon.post("/v1/execute", "{" + kProgram + "}"));
  CHECK(json_string(result, "status") == "ok");
  CHECK_FALSE(result.HasMember("api_calls"));
  daemon.stop_gracefully();
}
