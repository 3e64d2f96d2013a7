// `kode-gopher serve` at the JSON-RPC level: malformed input gets the exact JSON-RPC error and
// leaves the server answering; the legacy handshake and the 2026-07-28 per-request era. These
// tests never reach a daemon (the config names a socket nobody listens on).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include <csignal>
#include <filesystem>
#include <string>

#include "daemon_fixture.hpp"
#include "serve_process.hpp"

using kg::test::compact;
using kg::test::ServeProcess;

namespace {

constexpr const char* kModernMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

struct Serve {
  std::string dir = kg::test::unique_temp_dir("kg-mcp-protocol-");
  ServeProcess process{kg::test::write_unreachable_daemon_config(dir)};

  ~Serve() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  // Sends `line` and returns the one answer line.
  std::string ask(const std::string& line) {
    process.send(line);
    return process.read_line();
  }

  // The server still answers: a ping with `id` gets its empty result.
  void check_alive(int id) {
    CHECK(ask(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})") ==
          R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})");
  }

  rapidjson::Document initialize(const std::string& version) {
    process.send(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":")" +
                 version + R"(","capabilities":{},"clientInfo":{"name":"protocol-test","version":"1"}}})");
    rapidjson::Document answer = process.read_message();
    process.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    return answer;
  }
};

std::string error_answer(const std::string& id, int code, const std::string& message) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":)" + std::to_string(code) +
         R"(,"message":")" + message + R"("}})";
}

}  // namespace

TEST_SUITE_BEGIN("protocol");

TEST_CASE("text that is not JSON gets -32700 with a null id, and the server keeps answering") {
  Serve serve;
  CHECK(serve.ask("this is not json") ==
        error_answer("null", -32700,
                     "Parse error at line 1, column 2: the message is not JSON: Invalid value. Send "
                     "one JSON-RPC message per line."));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"ping")") ==
        error_answer("null", -32700,
                     "Parse error at line 1, column 40: the message is not JSON: Missing a comma or "
                     "'}' after an object member. Send one JSON-RPC message per line."));
  serve.check_alive(2);
  CHECK(serve.process.close_and_wait() == 0);
  CHECK(serve.process.remaining_output() == "");
}

TEST_CASE("JSON that is not a JSON-RPC request gets -32600") {
  Serve serve;
  CHECK(serve.ask("[1,2]") ==
        error_answer("null", -32600,
                     "Invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed "
                     "them); send one message per line"));
  CHECK(serve.ask("42") ==
        error_answer("null", -32600, "Invalid request: a JSON-RPC message must be a JSON object"));
  CHECK(serve.ask(R"({"jsonrpc":"1.0","id":3,"method":"ping"})") ==
        error_answer("3", -32600, R"(Invalid request: \"jsonrpc\" must be \"2.0\")"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":null,"method":"ping"})") ==
        error_answer("null", -32600,
                     R"(Invalid request: \"id\" must be a string or an integer (MCP forbids null))"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") ==
        error_answer("null", -32600,
                     R"(Invalid request: \"id\" must be a string or an integer (MCP forbids null))"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":4,"method":7})") ==
        error_answer("4", -32600, R"(Invalid request: \"method\" must be a string)"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":5})") ==
        error_answer("5", -32600, R"(Invalid request: the message has no \"method\")"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":6,"method":"ping","params":"x"})") ==
        error_answer("6", -32600, R"(Invalid request: \"params\" must be an object)"));
  serve.check_alive(7);
}

TEST_CASE("an unknown method gets -32601 with the request's id; unknown notifications get nothing") {
  Serve serve;
  serve.initialize("2025-11-25");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":"x-1","method":"resources/subscribe"})") ==
        error_answer(R"("x-1")", -32601, "Method not found: resources/subscribe"));
  serve.process.send(R"({"jsonrpc":"2.0","method":"notifications/no_such_thing","params":{}})");
  serve.process.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})");
  serve.process.send(R"({"jsonrpc":"2.0","id":42,"result":{}})");  // a response: ignored too
  serve.check_alive(8);  // the very next line is the ping's answer
}

TEST_CASE("wrong params get -32602") {
  Serve serve;
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") ==
        error_answer("1", -32602,
                     R"(Invalid params: initialize needs \"protocolVersion\" (a string such as \"2025-11-25\"))"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":[1]})") ==
        error_answer("2", -32602, "Invalid params: MCP params are an object, not an array"));
  serve.initialize("2025-11-25");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}})") ==
        error_answer("3", -32602,
                     R"(Invalid params: tools/call needs \"name\", the tool's name (a string))"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm_rf"}})") ==
        error_answer("4", -32602,
                     R"(Invalid params: unknown tool \"rm_rf\"; the tools are execute_go_code, gcp_auth_status, lookup_package_docs)"));
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_go_code","arguments":"x"}})") ==
        error_answer("5", -32602, R"(Invalid params: tools/call \"arguments\" must be an object)"));
  serve.check_alive(6);
}

TEST_CASE("tool arguments that do not fit are an isError result, not a protocol error") {
  Serve serve;
  serve.initialize("2025-11-25");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main","files":{"a.go":"x"}}}})") ==
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"execute_go_code: give exactly one of \"code\" or \"files\", not both"}],"isError":true}})");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main","timeout":5}}})") ==
        R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"execute_go_code: unknown argument \"timeout\"; the arguments are: code, files, extra_imports, runtime, timeout_ms, api_policy, action"}],"isError":true}})");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"files":{"main.go":1}}}})") ==
        R"({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"execute_go_code: argument \"files\" must map each path to its content as a string; \"main.go\" is not a string"}],"isError":true}})");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main","runtime":"python"}}})") ==
        R"({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"execute_go_code: runtime \"python\" is not available; available runtimes: compiled-go, yaegi, auto"}],"isError":true}})");
  for (const char* bad : {"0", "-5", "1.5", "\"60s\"", "4294967296"}) {
    CAPTURE(bad);
    CHECK(serve.ask(std::string(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main","timeout_ms":)") + bad + "}}}") ==
          R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"execute_go_code: argument \"timeout_ms\" must be a whole number of at least 1"}],"isError":true}})");
  }
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup_package_docs","arguments":{"package":"cloud.google.com/go/storage","symbol":"x; rm -rf /"}}})") ==
        R"({"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"lookup_package_docs: symbol \"x; rm -rf /\" must be a Go identifier or a dotted path of them, such as NewClient or Client.Bucket"}],"isError":true}})");
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"gcp_auth_status","arguments":{"verbose":true}}})") ==
        R"({"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"gcp_auth_status: unknown argument \"verbose\"; the arguments are: none"}],"isError":true}})");
}

TEST_CASE("only the runtimes this build has are offered, and another is refused clearly") {
  Serve serve;
  serve.initialize("2025-11-25");
  serve.process.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const auto list = serve.process.read_message();
  const auto& execute = list["result"]["tools"][0];
  REQUIRE(kg::test::json_string(execute, "name") == "execute_go_code");
  CHECK(compact(execute["inputSchema"]["properties"]["runtime"]["enum"]) ==
        R"(["compiled-go","yaegi","auto"])");
  // A result names the runtime that ran: auto always resolves to one of the two.
  CHECK(compact(execute["outputSchema"]["properties"]["runtime"]["enum"]) ==
        R"(["compiled-go","yaegi"])");
  CHECK(execute["outputSchema"]["properties"].HasMember("runtime_reason"));
  const std::string description = kg::test::json_string(execute, "description");
  CHECK(description.find("`runtime` picks the runtime (compiled-go, yaegi, auto)") !=
        std::string::npos);
  // The description alone tells an agent the sandbox's rules: persistence, limits, network, cgo.
  // No daemon runs: serve asked the daemon binary, which read the config's (default) [limits].
  for (const char* rule : {"/app/persist is the session's scratch folder", "60 s on this daemon",
                           "through the daemon's egress proxy", "cgo is not available",
                           "`action` test runs the tests", "status test_failed",
                           "under /app/out", "progress notifications while it runs",
                           "can run as a task"}) {
    CAPTURE(rule);
    CHECK(description.find(rule) != std::string::npos);
  }
  for (const std::string runtime : {"gopherjs", "tinygo"}) {
    CAPTURE(runtime);
    CHECK(serve.ask(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main\nfunc main() {}\n","runtime":")" +
                    runtime + R"("}}})") ==
          R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"execute_go_code: runtime \")" +
              runtime + R"(\" is not available; available runtimes: compiled-go, yaegi, auto"}],"isError":true}})");
  }
}

TEST_CASE("a runtime a plugin brings is offered: the names come from the plugins, not mcp/") {
  // No daemon runs: serve asks the daemon binary what it would offer (--describe-runtimes),
  // which reads the descriptors of the plugins in [plugins] dirs. The mock open-runtime offers
  // "echo", a name compiled in nowhere. The limits come from the same config, not from mcp/.
  const char* mocks = std::getenv("KG_MOCK_PLUGIN_DIR");
  REQUIRE(mocks != nullptr);
  const std::string dir = kg::test::unique_temp_dir("kg-mcp-open-runtime-");
  const std::string config = dir + "/kode-gopher.ini";
  std::ofstream(config) << "[daemon]\nsocket = " << dir << "/nobody-listens.sock\nstate_dir = "
                        << dir << "/state\n[plugins]\ndirs = " << mocks
                        << "\n[runtime]\ndefault = echo\nauto_order = echo, good-runtime\n"
                        << "[limits]\nrun_timeout_ms = 2500\nmax_run_timeout_ms = 120000\n"
                        << "build_timeout_ms = 45000\noutput_bytes = 65536\n";
  {
    ServeProcess process(config);
    process.send(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"protocol-test","version":"1"}}})");
    process.read_message();
    process.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    process.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    const auto list = process.read_message();
    const auto& execute = list["result"]["tools"][0];
    const std::string offered = compact(execute["inputSchema"]["properties"]["runtime"]["enum"]);
    CAPTURE(offered);
    CHECK(offered.find(R"("echo")") != std::string::npos);
    CHECK(offered.find(R"("good-runtime")") != std::string::npos);
    CHECK(offered.find(R"("compiled-go")") == std::string::npos);
    CHECK(offered.ends_with(R"("auto"])"));
    const std::string described = kg::test::json_string(
        execute["inputSchema"]["properties"]["runtime"], "description");
    CHECK(described.find("echo: Mock runtime offering the runtime echo") != std::string::npos);
    CHECK(described.find("auto: gives the call to echo, which hands it to good-runtime") !=
          std::string::npos);
    CHECK(described.find("daemon's default (echo)") != std::string::npos);
    const std::string description = kg::test::json_string(execute, "description");
    CAPTURE(description);
    CHECK(description.find("wall-clock limit (2500 ms on this daemon; the build has its own, 45 s)") !=
          std::string::npos);
    CHECK(description.find("maximum (120000 ms on this daemon)") != std::string::npos);
    CHECK(description.find("output_limit after 64 KiB of stdout or stderr)") != std::string::npos);
    process.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"package main","runtime":"yaegi"}}})");
    const std::string refused = process.read_line();
    CHECK(refused.find(R"(runtime \"yaegi\" is not available; available runtimes: )") !=
          std::string::npos);
    CHECK(process.close_and_wait() == 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

TEST_CASE("before initialize only ping is served to a request without 2026-07-28 _meta") {
  Serve serve;
  serve.check_alive(1);
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})") ==
        error_answer("2", -32602,
                     R"(Invalid params: \"tools/list\" before initialize: send initialize first (protocol 2025-11-25 and earlier), or carry _meta \"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\" and \"io.modelcontextprotocol/clientCapabilities\" in every request (2026-07-28))"));
  const auto init = serve.initialize("2025-11-25");
  CHECK(compact(init["result"]["protocolVersion"]) == R"("2025-11-25")");
  serve.process.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");
  const auto list = serve.process.read_message();
  CHECK(list["result"]["tools"].Size() == 3);
}

TEST_CASE("a 5 MiB line is read whole, and a line over 32 MiB is dropped with -32600") {
  Serve serve;
  const std::string padding(5u << 20, 'x');
  // A valid request that happens to be large is answered normally.
  CHECK(serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":")" +
                  padding + R"("}}})") == R"({"jsonrpc":"2.0","id":1,"result":{}})");
  // 5 MiB that are not JSON are a parse error like any other.
  CHECK(serve.ask(padding) ==
        error_answer("null", -32700,
                     "Parse error at line 1, column 1: the message is not JSON: Invalid value. Send "
                     "one JSON-RPC message per line."));
  // Over the limit: read to its end, thrown away, answered, and the next line is read again.
  const std::string huge((32u << 20) + 100, 'y');
  CHECK(serve.ask(huge) ==
        error_answer("null", -32600,
                     "Invalid request: the message is 33554532 bytes, more than the 32 MiB this "
                     "server reads in one line; send large programs as several files, or run them "
                     "with `kode-gopher exec`"));
  serve.check_alive(2);
  CHECK(serve.process.close_and_wait() == 0);
  CHECK(serve.process.remaining_output() == "");
}

TEST_CASE("SIGTERM stops the server like the end of stdin does") {
  Serve serve;
  serve.initialize("2025-11-25");
  serve.check_alive(1);
  CHECK(serve.process.signal_and_wait(SIGTERM) == 0);
  CHECK(serve.process.stderr_text().find("info Stopped on Terminated\n") != std::string::npos);
  CHECK(serve.process.remaining_output() == "");
}

TEST_SUITE_END();
