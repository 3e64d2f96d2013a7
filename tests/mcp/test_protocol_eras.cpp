// The protocol revisions `kode-gopher serve` speaks: which version an initialize gets, what a
// 2025-03-26 client is (not) shown, and the 2026-07-28 era (server/discover, per-request _meta,
// resultType, version errors).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "daemon_fixture.hpp"
#include "serve_process.hpp"

using kg::test::compact;
using kg::test::ServeProcess;

namespace {

constexpr const char* kMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";
constexpr const char* kServerInfo =
    R"({"name":"kode-gopher","title":"kode-gopher: Go in a sandbox","version":")" KG_VERSION R"("})";

struct Serve {
  std::string dir = kg::test::unique_temp_dir("kg-mcp-eras-");
  ServeProcess process{kg::test::write_unreachable_daemon_config(dir)};
  ~Serve() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  rapidjson::Document ask(const std::string& line) {
    process.send(line);
    return process.read_message();
  }
  std::string initialize(const std::string& version) {
    const auto answer = ask(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" +
                            version + R"(","capabilities":{}}})");
    return compact(answer["result"]["protocolVersion"]);
  }
};

}  // namespace

TEST_SUITE_BEGIN("protocol");

TEST_CASE("initialize answers with the requested legacy revision, else with 2025-11-25") {
  CHECK(Serve().initialize("2025-11-25") == R"("2025-11-25")");
  CHECK(Serve().initialize("2025-06-18") == R"("2025-06-18")");
  CHECK(Serve().initialize("2025-03-26") == R"("2025-03-26")");
  CHECK(Serve().initialize("2024-11-05") == R"("2025-11-25")");
  CHECK(Serve().initialize("2099-01-01") == R"("2025-11-25")");
  CHECK(Serve().initialize("2026-07-28") == R"("2025-11-25")");  // 2026-07-28 has no initialize
}

TEST_CASE("the initialize result names the server, its capabilities and instructions") {
  Serve serve;
  const auto answer = serve.ask(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  const auto& result = answer["result"];
  CHECK(compact(result["capabilities"]) == R"({"tools":{"listChanged":false},"prompts":{"listChanged":false},)"
                                                 R"("resources":{"subscribe":false,"listChanged":false},)"
                                                 R"("tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}})");
  CHECK(compact(result["serverInfo"]) == kServerInfo);
  CHECK(std::string(result["instructions"].GetString()).starts_with("kode-gopher runs Go programs"));
  CHECK_FALSE(result.HasMember("resultType"));  // legacy results carry no resultType
}

TEST_CASE("a 2025-03-26 client gets no outputSchema or title; 2025-06-18 and later get both") {
  Serve old_client;
  old_client.initialize("2025-03-26");
  const auto old_list = old_client.ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  for (const auto& tool : old_list["result"]["tools"].GetArray()) {
    CHECK_FALSE(tool.HasMember("outputSchema"));
    CHECK_FALSE(tool.HasMember("title"));
    CHECK(tool.HasMember("inputSchema"));
    CHECK(tool.HasMember("annotations"));
  }
  Serve new_client;
  new_client.initialize("2025-06-18");
  const auto new_list = new_client.ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const auto& tools = new_list["result"]["tools"];
  REQUIRE(tools.Size() == 3);
  CHECK(compact(tools[0]["title"]) == R"("Run Go code")");
  CHECK(compact(tools[1]["outputSchema"]["properties"]["mode"]["enum"]) ==
        R"(["sealed","forwarded","access-token","workload","none"])");
  CHECK(compact(tools[2]["outputSchema"]["required"]) == R"(["package","docs"])");
  CHECK_FALSE(new_list["result"].HasMember("ttlMs"));
}

TEST_CASE("server/discover answers a 2026-07-28 request without any initialize") {
  Serve serve;
  const auto answer = serve.ask(
      std::string(R"({"jsonrpc":"2.0","id":"d","method":"server/discover","params":{)") + kMeta + "}}");
  const auto& result = answer["result"];
  CHECK(compact(answer["id"]) == R"("d")");
  CHECK(compact(result["supportedVersions"]) ==
        R"(["2026-07-28","2025-11-25","2025-06-18","2025-03-26"])");
  CHECK(compact(result["capabilities"]) == R"({"tools":{"listChanged":false},"prompts":{"listChanged":false},)"
                                                 R"("resources":{"subscribe":false,"listChanged":false}})");
  CHECK(compact(result["resultType"]) == R"("complete")");
  CHECK(compact(result["ttlMs"]) == "3600000");
  CHECK(compact(result["cacheScope"]) == R"("public")");
  CHECK(compact(result["_meta"]) ==
        std::string(R"({"io.modelcontextprotocol/serverInfo":)") + kServerInfo + "}");
}

TEST_CASE("2026-07-28 requests carry resultType and are checked for version and capabilities") {
  Serve serve;
  const auto list = serve.ask(std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{)") + kMeta + "}}");
  CHECK(list["result"]["tools"].Size() == 3);
  CHECK(compact(list["result"]["resultType"]) == R"("complete")");
  CHECK(compact(list["result"]["ttlMs"]) == "3600000");
  CHECK(compact(list["result"]["cacheScope"]) == R"("public")");

  const auto call = serve.ask(
      std::string(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_go_code","arguments":{},)") +
      kMeta + "}}");
  CHECK(compact(call["result"]["isError"]) == "true");
  CHECK(compact(call["result"]["resultType"]) == R"("complete")");

  serve.process.send(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}})");
  CHECK(serve.process.read_line() ==
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"],"requested":"1900-01-01"}}})");
  serve.process.send(
      R"({"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
  CHECK(serve.process.read_line() ==
        R"x({"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: a 2026-07-28 request must carry _meta \"io.modelcontextprotocol/clientCapabilities\" (an object)"}})x");
  serve.process.send(R"({"jsonrpc":"2.0","id":5,"method":"server/discover"})");
  CHECK(serve.process.read_message()["error"]["code"].GetInt() == -32602);
  // Even after a legacy initialize, discovery belongs to the 2026-07-28 era.
  serve.initialize("2025-11-25");
  serve.process.send(R"({"jsonrpc":"2.0","id":6,"method":"server/discover"})");
  CHECK(serve.process.read_line() ==
        R"({"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: server/discover is a 2026-07-28 method: carry _meta \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\""}})");
  CHECK(serve.process.close_and_wait() == 0);
  CHECK(serve.process.remaining_output() == "");
}

TEST_CASE("tasks are 2025-11-25's: a task's life without a daemon, and -32601 in other revisions") {
  Serve serve;
  serve.initialize("2025-11-25");
  const auto tools = serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK(compact(tools["result"]["tools"][0]["execution"]) == R"({"taskSupport":"optional"})");
  CHECK_FALSE(tools["result"]["tools"][1].HasMember("execution"));

  // Arguments the tool refuses need no daemon: the task fails with the tool's isError result.
  const auto created = serve.ask(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"x","files":{}},"task":{"ttl":5}}})");
  const auto& task = created["result"]["task"];
  const std::string id = task["taskId"].GetString();
  CHECK(id.size() == 32);
  CHECK(compact(task["status"]) == R"("working")");
  CHECK(task["ttl"].GetUint64() == 60000);  // raised to the minimum
  CHECK(task["pollInterval"].GetUint64() == 1000);
  const auto result = serve.ask(R"({"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":")" + id + R"("}})");
  CHECK(compact(result["result"]) ==
        R"({"content":[{"type":"text","text":"execute_go_code: give exactly one of \"code\" or \"files\", not both"}],"isError":true,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":")" + id + R"("}}})");
  const auto got = serve.ask(R"({"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":")" + id + R"("}})");
  CHECK(compact(got["result"]["status"]) == R"("failed")");
  CHECK(std::string(got["result"]["statusMessage"].GetString()).starts_with("The call's result has isError: true (execute_go_code: give exactly one"));
  const auto listed = serve.ask(R"({"jsonrpc":"2.0","id":5,"method":"tasks/list"})");
  REQUIRE(listed["result"]["tasks"].Size() == 1);
  CHECK(std::string(listed["result"]["tasks"][0]["taskId"].GetString()) == id);
  const auto again = serve.ask(R"({"jsonrpc":"2.0","id":6,"method":"tasks/cancel","params":{"taskId":")" + id + R"("}})");
  CHECK(compact(again["error"]) == R"({"code":-32602,"message":"Cannot cancel task: already in terminal status 'failed'; tasks/result has what it ended with"})");
  const auto unknown = serve.ask(R"({"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"nope"}})");
  CHECK(compact(unknown["error"]["code"]) == "-32602");
  CHECK(std::string(unknown["error"]["message"].GetString()).starts_with("Failed to retrieve task: Task not found"));
  const auto no_id = serve.ask(R"({"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{}})");
  CHECK(compact(no_id["error"]["code"]) == "-32602");
  const auto quick = serve.ask(
      R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"gcp_auth_status","task":{}}})");
  CHECK(compact(quick["error"]["code"]) == "-32601");

  // The modern revision moved tasks to an extension: no tasks/*, and `task` is ignored.
  const auto modern = serve.ask(std::string(R"({"jsonrpc":"2.0","id":10,"method":"tasks/list","params":{)") + kMeta + "}}");
  CHECK(compact(modern["error"]["code"]) == "-32601");
  const auto plain = serve.ask(std::string(
      R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"execute_go_code","arguments":{"code":"x","files":{}},"task":{},)") + kMeta + "}}");
  CHECK(plain["result"]["isError"].GetBool());
  CHECK_FALSE(plain["result"].HasMember("task"));
}

TEST_CASE("a 2025-06-18 connection is offered no tasks") {
  Serve serve;
  const auto answer = serve.ask(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})");
  CHECK_FALSE(answer["result"]["capabilities"].HasMember("tasks"));
  const auto tools = serve.ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK_FALSE(tools["result"]["tools"][0].HasMember("execution"));
  const auto get = serve.ask(R"({"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"x"}})");
  CHECK(compact(get["error"]) == R"j({"code":-32601,"message":"Method not found: tasks/get (tasks are part of protocol 2025-11-25 only; this request is 2025-06-18)"})j");
}

TEST_SUITE_END();
