// The one prompt of `kode-gopher serve` at the JSON-RPC level: prompts/list and prompts/get,
// their errors, in each protocol era, and `kode-gopher prompt` printing the same text. No daemon.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "client_runner.hpp"
#include "daemon_fixture.hpp"
#include "serve_process.hpp"

using kg::test::compact;
using kg::test::curated_packages;
using kg::test::ServeProcess;

namespace {

constexpr const char* kModernMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

struct Serve {
  std::string dir = kg::test::unique_temp_dir("kg-mcp-prompts-");
  ServeProcess process{kg::test::write_unreachable_daemon_config(dir)};
  ~Serve() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  rapidjson::Document ask(const std::string& line) {
    process.send(line);
    return process.read_message();
  }
  void initialize(const std::string& version) {
    ask(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" +
        version + R"(","capabilities":{}}})");
    process.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
};

std::string prompt_text(const rapidjson::Document& answer) {
  const auto& messages = answer["result"]["messages"];
  REQUIRE(messages.IsArray());
  REQUIRE(messages.Size() == 1);
  return messages[0]["content"]["text"].GetString();
}

}  // namespace

TEST_SUITE_BEGIN("protocol");

TEST_CASE("prompts/list offers the system prompt, without arguments") {
  Serve serve;
  serve.initialize("2025-11-25");
  const auto list = serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"prompts/list"})");
  CHECK(compact(list["result"]) ==
        R"({"prompts":[{"name":"kode_gopher_system_prompt","title":"How to use kode-gopher","description":"System prompt for an agent using kode-gopher: how to write Go for execute_go_code (a func run snippet or a whole program), the curated packages, how results come back, the limits, and tips."}]})");

  Serve old_client;  // 2025-03-26 knows no titles
  old_client.initialize("2025-03-26");
  const auto old_list = old_client.ask(R"({"jsonrpc":"2.0","id":1,"method":"prompts/list"})");
  REQUIRE(old_list["result"]["prompts"].Size() == 1);
  CHECK_FALSE(old_list["result"]["prompts"][0].HasMember("title"));
  CHECK(compact(old_list["result"]["prompts"][0]["name"]) == R"("kode_gopher_system_prompt")");
}

TEST_CASE("prompts/get returns one user message naming every curated package") {
  Serve serve;
  serve.initialize("2025-11-25");
  const auto answer = serve.ask(
      R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"kode_gopher_system_prompt"}})");
  const auto& result = answer["result"];
  CHECK(kg::test::json_string(result, "description").starts_with("System prompt for an agent"));
  REQUIRE(result["messages"].Size() == 1);
  CHECK(compact(result["messages"][0]["role"]) == R"("user")");
  CHECK(compact(result["messages"][0]["content"]["type"]) == R"("text")");
  CHECK_FALSE(result.HasMember("resultType"));  // legacy results carry none
  const std::string text = prompt_text(answer);
  for (const auto& package : curated_packages()) {
    CAPTURE(package);
    CHECK(text.find("  - " + package + "\n") != std::string::npos);
  }
  // What an agent needs to write and read a call (checks that fail if a section goes missing).
  CHECK(text.find("func run(ctx context.Context) (any, error)") != std::string::npos);
  CHECK(text.find("marshal_error") != std::string::npos);
  CHECK(text.find("compile_error") != std::string::npos);
  CHECK(text.find("diagnostics") != std::string::npos);
  CHECK(text.find("Every call starts in a fresh working directory (`/app`)") != std::string::npos);
  // The default network is the allowlist through the egress proxy, not "none" (docs/egress.md).
  CHECK(text.find("no network at all") == std::string::npos);
  CHECK(text.find("through the daemon's egress proxy") != std::string::npos);
  CHECK(text.find("no network") != std::string::npos);
  CHECK(text.find("extra_imports") != std::string::npos);
  CHECK(text.find("go.mod") != std::string::npos);
  // Only what exists: the session's scratch folder, the runtimes this build has.
  CHECK(text.find("/app/persist") != std::string::npos);
  CHECK(text.find("`runtime`: the runtime that ran the call, `compiled-go` (go build) or `yaegi`") !=
        std::string::npos);
  CHECK(text.find("`runtime: auto`") != std::string::npos);
  CHECK(text.find("tinygo") == std::string::npos);
  // An empty arguments object is the same as none.
  const auto with_empty = serve.ask(
      R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"kode_gopher_system_prompt","arguments":{}}})");
  CHECK(prompt_text(with_empty) == text);
}

TEST_CASE("prompts/get with an unknown name, no name or arguments gets -32602") {
  Serve serve;
  serve.initialize("2025-11-25");
  serve.process.send(
      R"({"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"write_python"}})");
  CHECK(serve.process.read_line() ==
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: unknown prompt \"write_python\"; the prompts are kode_gopher_system_prompt"}})");
  serve.process.send(R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{}})");
  CHECK(serve.process.read_line() ==
        R"x({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: prompts/get needs \"name\", the prompt's name (a string)"}})x");
  serve.process.send(
      R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"kode_gopher_system_prompt","arguments":{"language":"go"}}})");
  CHECK(serve.process.read_line() ==
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: prompt \"kode_gopher_system_prompt\" takes no arguments"}})");
  serve.process.send(R"({"jsonrpc":"2.0","id":4,"method":"ping"})");
  CHECK(serve.process.read_line() == R"({"jsonrpc":"2.0","id":4,"result":{}})");
}

TEST_CASE("2026-07-28: prompts/list is cacheable and both results carry resultType") {
  Serve serve;
  const auto list = serve.ask(
      std::string(R"({"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{)") + kModernMeta + "}}");
  const auto& listed = list["result"];
  REQUIRE(listed["prompts"].Size() == 1);
  CHECK(compact(listed["prompts"][0]["title"]) == R"("How to use kode-gopher")");
  CHECK(compact(listed["resultType"]) == R"("complete")");
  CHECK(compact(listed["ttlMs"]) == "3600000");
  CHECK(compact(listed["cacheScope"]) == R"("public")");
  CHECK(kg::test::json_string(listed["_meta"]["io.modelcontextprotocol/serverInfo"], "name") ==
        "kode-gopher");

  const auto got = serve.ask(
      std::string(R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"kode_gopher_system_prompt",)") +
      kModernMeta + "}}");
  CHECK(compact(got["result"]["resultType"]) == R"("complete")");
  CHECK(prompt_text(got).starts_with("# Using kode-gopher"));
  CHECK_FALSE(got["result"].HasMember("ttlMs"));  // only list results are cacheable
}

TEST_CASE("`kode-gopher prompt` prints exactly the text prompts/get returns") {
  Serve serve;
  serve.initialize("2025-11-25");
  const std::string text = prompt_text(serve.ask(
      R"({"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"kode_gopher_system_prompt"}})"));
  std::string out, err;
  // No daemon, no config: the command needs neither.
  CHECK(kg::test::run_cli({"prompt"}, out, err) == 0);
  CHECK(err == "");
  CHECK(out == text);
  CHECK(out.ends_with("\n"));
}

TEST_SUITE_END();
