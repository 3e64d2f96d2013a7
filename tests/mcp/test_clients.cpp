// Real MCP clients against `kode-gopher serve` and a real daemon: the official TypeScript SDK
// (legacy 2025-11-25), the v2 TypeScript client (2026-07-28), the MCP Inspector CLI and the
// official Go SDK (2026-07-28 and 2025-06-18), each with the tools and the prompt. The Node and
// Go clients assert in their own language and exit non-zero on the first failed check; this file
// installs them, gives each a fresh daemon, and checks that every check ran and passed.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "client_runner.hpp"
#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::client_env;
using kg::test::CommandOutcome;
using kg::test::curated_packages;
using kg::test::DaemonFixture;
using kg::test::required_env;
using kg::test::run_command;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

CommandOutcome run_node_client(const std::string& script) {
  const std::string node = kg::test::install_node_clients();
  DaemonFixture daemon;
  daemon.start();
  const CommandOutcome outcome =
      run_command(node, {script}, required_env("KG_MCP_NODE_DIR"),
                  client_env(daemon.config_path(), daemon.socket_path()));
  daemon.stop_gracefully();
  return outcome;
}

// The one JSON object the Inspector prints with --format json.
rapidjson::Document inspector_json(const CommandOutcome& outcome) {
  const auto start = outcome.output.find("{\"result\"");
  INFO(outcome.output);
  REQUIRE(start != std::string::npos);
  kg::json::ReadJson doc_read = kg::test::read_test_json(std::string_view(outcome.output.c_str() + start, outcome.output.find('\n', start) - start));
  rapidjson::Document& doc = doc_read.document;
  REQUIRE_FALSE(doc_read.refused.has_value());
  return std::move(doc);
}

}  // namespace

TEST_SUITE_BEGIN("clients");

TEST_CASE("the official TypeScript SDK client (@modelcontextprotocol/sdk)") {
  const CommandOutcome outcome = run_node_client("typescript_sdk_client.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "typescript-sdk: all 14 checks passed"));
}

// Three daemons, so that every row is true on any machine (docs/mcp.md, "What a failed call
// tells the agent"): the test daemon with network allowlist (explicit: the rows about the egress
// proxy need it) and one allowed name that never resolves (.invalid, RFC 6761), so the row about
// an unreachable allowed host fails the same way with or without internet; a tight one without
// network and with small memory and CPU limits; and one whose builds time out at once.
TEST_CASE("the failure table of docs/mcp.md, row by row through the TypeScript SDK client") {
  const std::string node = kg::test::install_node_clients();
  DaemonFixture daemon({.extra_sandbox_keys =
                            "network = allowlist\n"
                            "allowed_hosts = *.googleapis.com, accounts.google.com, "
                            "kg-no-such-host.invalid\n"});
  DaemonFixture tight({.extra_sandbox_keys = "network = none\n",
                       .extra_sections = "[credentials]\nplugin = none\n"
                                         "[limits]\nmemory_bytes = 536870912\ncpu_seconds = 5\n"
                                         // Long, so the CPU limit ends a spin first on a
                                         // busy machine too.
                                         "run_timeout_ms = 120000\n"});
  DaemonFixture slow_build({.extra_sections = "[limits]\nbuild_timeout_ms = 1000\n"});
  daemon.start();
  tight.start();
  slow_build.start();
  auto env = client_env(daemon.config_path(), daemon.socket_path());
  env["KG_MCP_CONFIG_TIGHT"] = tight.config_path();
  env["KG_MCP_CONFIG_SLOW_BUILD"] = slow_build.config_path();
  const CommandOutcome outcome =
      run_command(node, {"failure_table.mjs"}, required_env("KG_MCP_NODE_DIR"), env);
  slow_build.stop_gracefully();
  tight.stop_gracefully();
  daemon.stop_gracefully();
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "failure-table: all 40 checks passed"));
}

TEST_CASE("go test and go vet through the TypeScript SDK client (execute_go_code action)") {
  const CommandOutcome outcome = run_node_client("go_test_vet_client.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "go-test-vet: all 11 checks passed"));
}

TEST_CASE("long calls as MCP tasks through the TypeScript SDK's task client (2025-11-25)") {
  const CommandOutcome outcome = run_node_client("tasks_client.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "tasks: all 7 checks passed"));
}

TEST_CASE("output while it runs, as progress notifications to the TypeScript SDK client") {
  const CommandOutcome outcome = run_node_client("live_output.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "live-output: all 5 checks passed"));
}

TEST_CASE("files out over stdio through the TypeScript SDK client (resources/read, resources/list)") {
  const CommandOutcome outcome = run_node_client("out_files_stdio.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "out-files-stdio: all 7 checks passed"));
}

TEST_CASE("the v2 TypeScript client in the 2026-07-28 era (@modelcontextprotocol/client)") {
  const CommandOutcome outcome = run_node_client("modern_client.mjs");
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "modern-client: all 6 checks passed"));
}

TEST_CASE("the MCP Inspector CLI (@modelcontextprotocol/inspector --cli)") {
  kg::test::install_node_clients();
  const std::string dir = required_env("KG_MCP_NODE_DIR");
  DaemonFixture daemon;
  daemon.start();
  // npx puts node_modules/.bin first on PATH, so the Inspector runs on the Node 22 installed
  // there (it needs >= 22.19). It starts the server with a trimmed environment and owns --config
  // itself: the config path goes in through -e as $KODE_GOPHER_CONFIG.
  const auto inspector = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"--no-install", "@modelcontextprotocol/inspector", "--cli",
                                     "-e", "KODE_GOPHER_CONFIG=" + daemon.config_path(),
                                     "--format", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(required_env("KG_NPX"), argv, dir);
  };
  const std::string cli = required_env("KG_CLI");

  SUBCASE("tools/list, with the Inspector's schema portability check") {
    const CommandOutcome list = inspector({cli, "serve", "--method", "tools/list", "--strict"});
    CHECK(list.exit_code == 0);
    const auto doc = inspector_json(list);
    const auto& tools = doc["result"]["tools"];
    REQUIRE(tools.Size() == 3);
    CHECK(std::string(tools[0]["name"].GetString()) == "execute_go_code");
    CHECK(std::string(tools[1]["name"].GetString()) == "gcp_auth_status");
    CHECK(std::string(tools[2]["name"].GetString()) == "lookup_package_docs");
    CHECK_FALSE(contains(list.output, "Warning: tool"));
    CHECK_FALSE(contains(list.output, "Error: tool"));
  }
  SUBCASE("prompts/list and prompts/get: the system prompt names every curated package") {
    const CommandOutcome list = inspector({cli, "serve", "--method", "prompts/list"});
    CHECK(list.exit_code == 0);
    const auto listed = inspector_json(list);
    REQUIRE(listed["result"]["prompts"].Size() == 1);
    CHECK(kg::test::json_string(listed["result"]["prompts"][0], "name") ==
          "kode_gopher_system_prompt");
    const CommandOutcome get = inspector({cli, "serve", "--method", "prompts/get",
                                          "--prompt-name", "kode_gopher_system_prompt"});
    CHECK(get.exit_code == 0);
    const auto got = inspector_json(get);
    const auto& messages = got["result"]["messages"];
    REQUIRE(messages.Size() == 1);
    CHECK(kg::test::json_string(messages[0], "role") == "user");
    const std::string text = kg::test::json_string(messages[0]["content"], "text");
    for (const std::string& package : curated_packages()) {
      CAPTURE(package);
      CHECK(contains(text, "  - " + package + "\n"));
    }
    const CommandOutcome unknown = inspector(
        {cli, "serve", "--method", "prompts/get", "--prompt-name", "no_such_prompt"});
    CHECK(unknown.exit_code == 1);
    CHECK(contains(unknown.output,
                   R"(Invalid params: unknown prompt \"no_such_prompt\"; the prompts are kode_gopher_system_prompt)"));
  }
  SUBCASE("tools/call execute_go_code: a snippet, and a compile error") {
    const CommandOutcome ok = inspector(
        {cli, "serve", "--method", "tools/call", "--tool-name", "execute_go_code", "--tool-arg",
         "code=package snippet\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) "
         "{ return []int{1, 2, 3}, nil }\n"});
    CHECK(ok.exit_code == 0);
    const auto doc = inspector_json(ok);
    const auto& result = doc["result"];
    CHECK(result["isError"].GetBool() == false);
    CHECK(std::string(result["structuredContent"]["status"].GetString()) == "ok");
    CHECK(kg::test::json_string(result["structuredContent"]["result"], "kind") == "ok");
    CHECK(result["structuredContent"]["result"]["value"].Size() == 3);
    CHECK(std::string(result["content"][0]["text"].GetString())
              .starts_with("phase=run mode=wrapped runtime=compiled-go exit=0 ("));

    const CommandOutcome bad =
        inspector({cli, "serve", "--method", "tools/call", "--tool-name", "execute_go_code",
                   "--tool-arg", "code=package main\n\nfunc main() { undefinedName() }\n"});
    CHECK(bad.exit_code == 5);  // the Inspector's exit code for a result with isError: true
    CHECK(contains(bad.output, R"("code":"tool_is_error")"));
    const auto bad_doc = inspector_json(bad);
    CHECK(kg::test::json_string(bad_doc["result"]["structuredContent"], "status") ==
          "compile_error");
  }
  SUBCASE("tools/call execute_go_code with runtime yaegi: the interpreter's answer, same shape") {
    const CommandOutcome ran = inspector(
        {cli, "serve", "--method", "tools/call", "--tool-name", "execute_go_code", "--tool-arg",
         "code=package snippet\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) "
         "{ return []int{1, 2, 3}, nil }\n",
         "runtime=yaegi"});
    CHECK(ran.exit_code == 0);
    const auto doc = inspector_json(ran);
    const auto& result = doc["result"];
    CHECK(result["isError"].GetBool() == false);
    CHECK(kg::test::json_string(result["structuredContent"], "runtime") == "yaegi");
    CHECK(result["structuredContent"]["result"]["value"].Size() == 3);
    CHECK(std::string(result["content"][0]["text"].GetString())
              .starts_with("phase=run mode=wrapped runtime=yaegi exit=0 ("));
  }
  SUBCASE("tools/call gcp_auth_status and lookup_package_docs") {
    const auto auth = inspector_json(
        inspector({cli, "serve", "--method", "tools/call", "--tool-name", "gcp_auth_status"}));
    CHECK(kg::test::json_string(auth["result"]["structuredContent"], "mode") == "none");
    const CommandOutcome docs = inspector(
        {cli, "serve", "--method", "tools/call", "--tool-name", "lookup_package_docs",
         "--tool-arg", "package=cloud.google.com/go/storage", "symbol=NewClient"});
    CHECK(docs.exit_code == 0);
    const auto docs_doc = inspector_json(docs);
    CHECK(contains(
        kg::test::json_string(docs_doc["result"]["structuredContent"], "docs"),
        "func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)"));
  }
  SUBCASE("the 2026-07-28 era: tools/call with --protocol-era modern") {
    const CommandOutcome modern =
        inspector({"--protocol-era", "modern", cli, "serve", "--method", "tools/call",
                   "--tool-name", "gcp_auth_status"});
    CHECK(modern.exit_code == 0);
    const auto doc = inspector_json(modern);
    const auto& meta = doc["result"]["_meta"];
    CHECK(kg::test::json_string(meta["io.modelcontextprotocol/serverInfo"], "name") ==
          "kode-gopher");
    CHECK(kg::test::json_string(doc["result"]["structuredContent"], "mode") == "none");
  }
  daemon.stop_gracefully();
}

TEST_CASE("the official Go SDK client (github.com/modelcontextprotocol/go-sdk)") {
  DaemonFixture daemon;
  daemon.start();
  std::map<std::string, std::string> env = client_env(daemon.config_path(), daemon.socket_path());
  env["GOMODCACHE"] = required_env("KG_MCP_GOMODCACHE");  // the SDK comes through the proxy
  env["GOFLAGS"] = "-modcacherw -mod=readonly";
  env["GOTOOLCHAIN"] = "local";
  const CommandOutcome outcome = run_command(required_env("KG_GO"), {"test", "-count=1", "-v", "."},
                                             required_env("KG_MCP_GO_DIR"), env);
  daemon.stop_gracefully();
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  CHECK(contains(outcome.output, "--- PASS: TestModernProtocol"));
  CHECK(contains(outcome.output, "--- PASS: TestLegacyProtocol20250618"));
}

TEST_SUITE_END();
