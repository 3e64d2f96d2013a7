// Issue 25's gRPC story end to end: a real daemon with creds-adc (sealed, the default) against
// loopback Google endpoints, its sandbox on the default allowlist, and "pubsub.googleapis.com"
// played by pstest-tls (pubsub_peer.hpp: cloud.google.com/go/pubsub/v2's pstest over TLS and
// HTTP/2, recording every call's authorization and x-goog-request-params). The program is
// Google's own Pub/Sub client (tests/hostile/data/pubsub_program.go), tidied on the host from the
// test's module mirror (sealed_runs.hpp). Proven here: it creates a topic and a subscription,
// publishes and pulls (StreamingPull) in sealed mode holding only the placeholder, while the peer
// receives the real token on every call and never the placeholder; a read-only call's Publish
// and another project's Publish are refused by the proxy with gRPC PERMISSION_DENIED naming the
// rule, warned about in the result, and never reach the peer; each call's `api_calls` lists
// exactly the RPCs the peer received, plus the refused ones (docs/api-policy.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "adc_daemon_options.hpp"
#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "loopback_google.hpp"
#include "pubsub_peer.hpp"
#include "sealed_runs.hpp"

namespace kg::test::egress {
namespace {

constexpr const char* kStepsLine = R"(var steps = "create publish pull")";

std::string program_with_steps(const std::string& steps) {
  return data_program("pubsub_program.go", kStepsLine, "var steps = \"" + steps + "\"");
}

// method → how many times, from the peer's record ("/google.pubsub.v1.Publisher/Publish") and from
// a result's api_calls ("google.pubsub.v1.Publisher/Publish"), in the same form.
std::map<std::string, int> counted(const std::vector<std::string>& methods) {
  std::map<std::string, int> counts;
  for (const auto& method : methods) ++counts[method.starts_with("/") ? method.substr(1) : method];
  return counts;
}

std::vector<std::string> methods_of(const std::vector<PubsubCall>& calls) {
  std::vector<std::string> methods;
  for (const auto& call : calls) methods.push_back(call.method);
  return methods;
}

std::string text_of(const std::map<std::string, int>& counts) {
  std::string text;
  for (const auto& [method, count] : counts) text += method + " x" + std::to_string(count) + "\n";
  return text;
}

}  // namespace

TEST_CASE("hostile egress pubsub: Google's gRPC client works sealed, the peer sees only the real token, and the policy refuses Publish") {
  LoopbackGoogle google;
  DaemonFixture probe;  // the ADC file and the peer's record, outside the daemon's reach
  PubsubPeer peer(probe.dir());
  DaemonFixture daemon(adc_daemon_options(google, probe.dir()));  // sealed, the default
  start_with_environment(daemon, module_mirror_environment());
  // One session: its sandbox keeps the Pub/Sub client's compiled packages between the runs.
  const std::string session = daemon.open_session();

  // 1. Create, publish, pull: everything forwarded, with the real token.
  auto run = exec_program(daemon, "pubsub_all.go", program_with_steps("create publish pull"),
                          {"--session", session});
  INFO(run.describe());
  REQUIRE(run.exit_code == 0);
  REQUIRE(member_text(run.result(), "status") == "ok");
  const auto& value = run.result()["result"]["value"];
  const std::string placeholder = member_text(value, "token");
  CHECK(placeholder.starts_with("kg-sealed."));
  CHECK(google.subject_of(placeholder).empty());  // Google never issued it
  CHECK(member_text(value, "create_topic") == "OK");
  CHECK(member_text(value, "create_subscription") == "OK");
  CHECK(member_text(value, "publish") == "OK");
  CHECK_FALSE(member_text(value, "message_id").empty());
  CHECK(member_text(value, "pull") == "OK");
  REQUIRE(value["pulled"].IsArray());
  REQUIRE(value["pulled"].Size() == 1);
  CHECK(std::string(value["pulled"][0].GetString()) == "hello from the sandbox");
  CHECK_FALSE(has_warning(warnings_of(run.result()), "refuse"));

  REQUIRE(google.issued().size() == 1);
  const std::string real_token = google.issued().back().value;
  const auto calls = peer.calls();
  std::map<std::string, int> seen = counted(methods_of(calls));
  INFO("the peer received:\n" << text_of(seen));
  for (const char* rpc : {"google.pubsub.v1.Publisher/CreateTopic",
                          "google.pubsub.v1.Subscriber/CreateSubscription",
                          "google.pubsub.v1.Publisher/Publish",
                          "google.pubsub.v1.Subscriber/StreamingPull"}) {
    CAPTURE(rpc);
    CHECK(seen[rpc] >= 1);
  }
  for (const auto& call : calls) {
    CAPTURE(call.method);
    CHECK(call.authorization == "Bearer " + real_token);  // never the placeholder
    CHECK_FALSE(contains(call.authorization, placeholder));
    if (call.method.ends_with("/Publish")) {
      CHECK(call.request_params == "topic=projects%2Ftest-project%2Ftopics%2Fkg-topic");
    }
  }
  // api_calls: exactly the RPCs the peer received, none refused.
  REQUIRE(run.result().HasMember("api_calls"));
  const auto& api_calls = run.result()["api_calls"];
  CHECK(api_calls["count"].GetUint64() == calls.size());
  CHECK(api_calls["refused"].GetUint64() == 0);
  const auto listed = api_call_lines(run.result());
  INFO("api_calls:\n" << joined(listed));
  CHECK(counted(listed) == counted(methods_of(calls)));
  for (const auto& call : api_calls["calls"].GetArray()) {
    CHECK(member_text(call, "service") == "pubsub");
    if (member_text(call, "method") == "google.pubsub.v1.Publisher/Publish") {
      CHECK(member_text(call, "resource") == "projects/test-project/topics/kg-topic");
      CHECK(call["grpc_status"].GetInt() == 0);
    }
  }

  // 2. Read-only: Publish is a write; the proxy answers PERMISSION_DENIED naming the rule.
  const std::size_t before = calls.size();
  run = exec_program(daemon, "pubsub_publish.go", program_with_steps("publish"),
                     {"--session", session, "--read-only"});
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  {
    const auto& got = run.result()["result"]["value"];
    CHECK(member_text(got, "publish") == "PermissionDenied");
    CHECK(contains(member_text(got, "publish_error"),
                   "kode-gopher API policy: read-only refuses google.pubsub.v1.Publisher/Publish"));
    CHECK(has_warning(warnings_of(run.result()), "read-only refuses google.pubsub.v1.Publisher/Publish"));
    CHECK(api_call_lines(run.result()) ==
          std::vector<std::string>{"google.pubsub.v1.Publisher/Publish refused:read_only"});
    CHECK(run.result()["api_calls"]["calls"][0]["grpc_status"].GetInt() == 7);
  }
  CHECK(peer.calls().size() == before);  // it never left the proxy

  // 3. Another project only: this project's Publish is refused by the project rule.
  run = exec_program(daemon, "pubsub_publish.go", program_with_steps("publish"),
                     {"--session", session, "--project", "other-project"});
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  {
    const auto& got = run.result()["result"]["value"];
    CHECK(member_text(got, "publish") == "PermissionDenied");
    CHECK(contains(member_text(got, "publish_error"),
                   "project test-project is not in this call's api_policy.projects (other-project)"));
    CHECK(has_warning(warnings_of(run.result()), "project test-project is not in"));
    CHECK(api_call_lines(run.result()) ==
          std::vector<std::string>{"google.pubsub.v1.Publisher/Publish refused:projects"});
  }
  CHECK(peer.calls().size() == before);
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
