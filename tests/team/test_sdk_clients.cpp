// Real MCP clients over streamable HTTP against a daemon serving /mcp on loopback without
// sign-in: the official TypeScript SDK (2025-11-25, sessions), the v2 client (2026-07-28,
// stateless), the MCP Inspector CLI, and the MCP conformance suite's server scenarios.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "json_text_probe.hpp"
#include "node_clients.hpp"
#include "team_daemon.hpp"

namespace kg::test {
namespace {

const std::string kHello = R"(package main

import "fmt"

func main() { fmt.Println("hello from an SDK client") }
)";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the official TypeScript SDK client over streamable HTTP (2025-11-25)") {
  TeamDaemon team;
  const auto run = run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp", "--code", kHello});
  CHECK(run["ok"].GetBool());
  CHECK(text_at(run, "protocol_version") == "2025-11-25");
  CHECK(text_at(run, "session_id").size() == 32);
  REQUIRE(run["tools"].IsArray());
  CHECK(run["tools"].Size() == 3);
  REQUIRE(run["progress"].IsArray());
  CHECK(run["progress"].Size() >= 1);
  const auto& result = run["result"];
  CHECK_FALSE(result["isError"].GetBool());
  CHECK(text_at(result["structuredContent"], "stdout") == "hello from an SDK client\n");
  CHECK(run["terminate"]["status"].GetInt() == 200);
  CHECK(run["after_delete"]["status"].GetInt() == 404);
}

TEST_CASE("output while it runs reaches the TypeScript SDK client over streamable HTTP") {
  TeamDaemon team;
  const std::string two_lines = R"(package main

import (
	"fmt"
	"time"
)

func main() {
	fmt.Println("first line")
	time.Sleep(1500 * time.Millisecond)
	fmt.Println("second line")
}
)";
  const auto run = run_team_client("sign_in_and_run.mjs",
                                   {"--url", team.url + "/mcp", "--code", two_lines});
  CHECK(run["ok"].GetBool());
  REQUIRE(run["progress"].IsArray());
  const rapidjson::Value* first = nullptr;
  for (const auto& p : run["progress"].GetArray()) {
    if (first == nullptr && text_at(p, "message").find("first line") != std::string::npos) first = &p;
  }
  REQUIRE(first != nullptr);
  // In a notification on the SSE stream while the program slept, before the call returned.
  CHECK(run["returned_at"].GetDouble() - (*first)["at"].GetDouble() >= 1000);
  CHECK(text_at(run["result"]["structuredContent"], "stdout") == "first line\nsecond line\n");
}

TEST_CASE("the TypeScript SDK client over HTTPS, with the daemon's own TLS ([http] tls_*)") {
  TeamDaemon team("auth = none\n", "", true);
  const auto run = run_team_client("sign_in_and_run.mjs",
                                   {"--url", team.url + "/mcp", "--code", kHello},
                                   {{"NODE_EXTRA_CA_CERTS", team.certificate_path}});
  CHECK(run["ok"].GetBool());
  CHECK(text_at(run["result"]["structuredContent"], "stdout") == "hello from an SDK client\n");
  // Plain HTTP to the TLS port gets no MCP answer.
  const auto plain = run_team_client("raw_http.mjs", {"--url", "http://127.0.0.1:" +
                                                          std::to_string(team.port) + "/mcp",
                                                      "--rpc", "tools/list", "--timeout-ms", "5000"});
  CHECK(plain["responses"][0].HasMember("error"));
}

TEST_CASE("the v2 TypeScript client over streamable HTTP (2026-07-28, stateless)") {
  TeamDaemon team;
  const auto run = run_team_client("stateless_call.mjs", {"--url", team.url + "/mcp", "--code", kHello});
  CHECK(run["ok"].GetBool());
  CHECK(text_at(run, "era") == "modern");
  CHECK(text_at(run, "protocol_version") == "2026-07-28");
  const bool has_session = run.HasMember("session_id") && run["session_id"].IsString();
  CHECK_FALSE(has_session);
  CHECK(run["tools"].Size() == 3);
  CHECK(text_at(run["tools_call_answer"], "resultType") == "complete");
  CHECK(text_at(run["result"]["structuredContent"], "stdout") == "hello from an SDK client\n");
  CHECK(run["progress"].Size() >= 1);
}

TEST_CASE("a client that closes its SSE stream cancels its call (2026-07-28)") {
  TeamDaemon team;
  const std::string sleeper =
      R"({"name":"execute_go_code","arguments":{"code":"package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(120 * time.Second) }\n"}})";
  const auto started = std::chrono::steady_clock::now();
  const auto run = run_team_client("raw_http.mjs", {"--url", team.url + "/mcp", "--rpc",
                                                    "tools/call", "--params", sleeper,
                                                    "--stateless", "--timeout-ms", "4000"});
  INFO(to_text(run));
  CHECK(text_at(run["responses"][0]["error"], "name") == "Timeout");
  // The daemon records the call as cancelled, long before the program's two minutes.
  int cancelled = 0;
  for (int i = 0; i < 60 && cancelled == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto stats = team.daemon->json(team.daemon->get("/v1/stats"));
    const auto& by_status = stats["calls"]["by_status"];
    if (by_status.HasMember("cancelled")) cancelled = by_status["cancelled"].GetInt();
  }
  CHECK(cancelled == 1);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));
}

TEST_CASE("the MCP Inspector CLI over streamable HTTP") {
  TeamDaemon team;
  const auto list = run_team_npx({"@modelcontextprotocol/inspector", "--cli", team.url + "/mcp",
                                  "--transport", "http", "--format", "json", "--method",
                                  "tools/list"});
  INFO(list.output);
  CHECK(list.exit_code == 0);
  CHECK(contains(list.output, "\"execute_go_code\""));
  CHECK(contains(list.output, "\"lookup_package_docs\""));
  const auto call = run_team_npx({"@modelcontextprotocol/inspector", "--cli", team.url + "/mcp",
                                  "--transport", "http", "--format", "json", "--method",
                                  "tools/call", "--tool-name", "execute_go_code", "--tool-arg",
                                  "code=" + kHello});
  INFO(call.output);
  CHECK(call.exit_code == 0);
  CHECK(contains(call.output, "hello from an SDK client"));
}

// Every scenario that judges a server by what it offers. The others need the suite's own fixture
// tools, prompts and resources (test_simple_text, test://static-text, ...), or features
// kode-gopher does not offer (resources, completion, logging/setLevel, elicitation, sampling,
// the tasks extension); docs/team-mode.md lists them. Run a revision without --scenario to see
// them all.
TEST_CASE("the MCP conformance suite's server scenarios, both revisions") {
  TeamDaemon team("auth = none\n", "[team]\ncalls_per_minute = 6000\n");
  std::vector<std::string> args{"--url", team.url + "/mcp", "--revision", "2025-11-25",
                                "--revision", "2026-07-28"};
  for (const char* scenario :
       {"server-initialize", "ping", "server-session-lifecycle", "tools-list", "prompts-list",
        "server-sse-multiple-streams", "dns-rebinding-protection", "server-stateless",
        "http-header-validation",
        "input-required-result-unsupported-methods", "input-required-result-validate-input",
        "input-required-result-ignore-extra-params", "input-required-result-missing-input-response",
        "sep-2164-resource-not-found"}) {
    args.insert(args.end(), {"--scenario", scenario});
  }
  const auto run = run_team_client("conformance.mjs", args);
  INFO(to_text(run));
  REQUIRE(run["ok"].GetBool());
  for (const char* revision : {"2025-11-25", "2026-07-28"}) {
    CAPTURE(revision);
    const auto& scenarios = run["revisions"][revision]["scenarios"];
    REQUIRE(scenarios.IsObject());
    CHECK(scenarios.MemberCount() >= 4);
    for (const auto& scenario : scenarios.GetObject()) {
      const std::string name = scenario.name.GetString();
      CAPTURE(name);
      CHECK(scenario.value["passed"].GetInt() > 0);
      // "Not testable" failures name a diagnostic tool of the suite's own reference server
      // (test_missing_capability, test_logging_tool, ...); every other check must pass.
      for (const auto& failure : scenario.value["failures"].GetArray()) {
        const std::string message = text_at(failure, "message");
        CAPTURE(message);
        CHECK(message.starts_with("Not testable: server does not list the diagnostic tool 'test_"));
      }
    }
  }
}

}  // namespace kg::test
