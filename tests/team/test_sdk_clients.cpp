// Real MCP clients over streamable HTTP against a daemon serving /mcp on loopback without
// sign-in: the official TypeScript SDK (2025-11-25, sessions), the v2 client (2026-07-28,
// stateless), the MCP Inspector CLI, and the MCP conformance suite's server scenarios.
#include <doctest/doctest.h>

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

// The scenarios that judge a server as it is, without the suite's own fixture tools, prompts and
// resources (test_simple_text, test://static-text, ...), which kode-gopher does not offer:
// tests/team/node/README.md lists every scenario and why.
TEST_CASE("the MCP conformance suite's server scenarios, both revisions") {
  TeamDaemon team;
  const auto run = run_team_client(
      "conformance.mjs",
      {"--url", team.url + "/mcp", "--revision", "2025-11-25", "--revision", "2026-07-28",
       "--scenario", "server-initialize", "--scenario", "ping", "--scenario",
       "server-session-lifecycle", "--scenario", "tools-list", "--scenario", "prompts-list",
       "--scenario", "server-sse-multiple-streams", "--scenario", "dns-rebinding-protection",
       "--scenario", "server-stateless", "--scenario", "http-header-validation"});
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
        CHECK(message.starts_with("Not testable: server does not list the diagnostic tool"));
      }
    }
  }
}

}  // namespace kg::test
