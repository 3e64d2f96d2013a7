// MCP over streamable HTTP without sign-in ([http] auth = none on loopback): the transport's
// rules for both protocol eras, driven with plain HTTP against a real daemon.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include "json_text_probe.hpp"
#include "source_bound_client.hpp"
#include "team_daemon.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace {

const std::string kHello = R"(package main

import "fmt"

func main() { fmt.Println("hello over http") }
)";

std::string tool_call(int id, const std::string& source, const std::string& meta = "") {
  rapidjson::Document call(rapidjson::kObjectType);
  auto& a = call.GetAllocator();
  call.AddMember("jsonrpc", "2.0", a);
  call.AddMember("id", id, a);
  call.AddMember("method", "tools/call", a);
  rapidjson::Value params(rapidjson::kObjectType);
  params.AddMember("name", "execute_go_code", a);
  rapidjson::Value arguments(rapidjson::kObjectType);
  arguments.AddMember("code", rapidjson::Value(source.c_str(), a), a);
  params.AddMember("arguments", arguments, a);
  kg::json::ReadJson meta_doc_read = kg::test::read_test_json(meta.empty() ? R"({"progressToken":"p1"})" : meta);
  rapidjson::Document& meta_doc = meta_doc_read.document;
  params.AddMember("_meta", rapidjson::Value(meta_doc, a), a);
  call.AddMember("params", params, a);
  return to_text(call);
}

std::string modern_meta() {
  return R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";
}

ProbeHeaders modern_headers(const std::string& method, const std::string& name = "") {
  ProbeHeaders headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}};
  if (!name.empty()) headers.emplace_back("Mcp-Name", name);
  return headers;
}

int error_code(const rapidjson::Document& message) {
  if (!message.IsObject() || !message.HasMember("error")) return 0;
  return message["error"]["code"].GetInt();
}

}  // namespace

TEST_CASE("a 2025-11-25 session over HTTP: initialize, tools, a call with progress, DELETE") {
  TeamDaemon team;
  const HttpProbe http = team.probe();

  // /v1/health names the endpoint (the bound port, since the test asked for port 0).
  const auto health = team.daemon->json(team.daemon->get("/v1/health"));
  REQUIRE(health.HasMember("team"));
  CHECK(std::string(health["team"]["url"].GetString()) == team.url + "/mcp");
  CHECK(std::string(health["team"]["listening"].GetString()) == "127.0.0.1:" + std::to_string(team.port));
  CHECK(std::string(health["team"]["transport"].GetString()) == "http");
  CHECK(std::string(health["team"]["auth"].GetString()) == "none");
  CHECK_FALSE(health["team"].HasMember("run_as"));

  const ProbeAnswer init = http.post_mcp(initialize_request());
  REQUIRE(init.status == 200);
  const std::string session = init.header("mcp-session-id");
  REQUIRE(session.size() == 32);
  auto init_messages = init.messages();
  REQUIRE(init_messages.size() == 1);
  CHECK(std::string(init_messages[0]["result"]["protocolVersion"].GetString()) == "2025-11-25");

  const ProbeHeaders in_session{{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}};
  CHECK(http.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", in_session).status == 202);

  const ProbeAnswer list = http.post_mcp(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", in_session);
  REQUIRE(list.status == 200);
  auto tools = list.messages();
  REQUIRE(tools.size() == 1);
  CHECK(tools[0]["result"]["tools"].Size() == 3);

  // A call answers as SSE: progress notifications, then the result.
  const ProbeAnswer call = http.post_mcp(tool_call(3, kHello), in_session);
  REQUIRE(call.status == 200);
  CHECK(call.header("content-type").find("text/event-stream") != std::string::npos);
  CHECK(call.header("x-accel-buffering") == "no");
  auto events = call.messages();
  REQUIRE(events.size() >= 2);
  CHECK(std::string(events.front()["method"].GetString()) == "notifications/progress");
  const auto& result = events.back();
  REQUIRE(result.HasMember("result"));
  CHECK(result["id"].GetInt() == 3);
  CHECK_FALSE(result["result"]["isError"].GetBool());
  CHECK(std::string(result["result"]["structuredContent"]["stdout"].GetString()) ==
        "hello over http\n");

  // The daemon session behind it belongs to the (local) user and has a sandbox.
  auto sessions = team.daemon->json(team.daemon->get("/v1/sessions"));
  REQUIRE(sessions["sessions"].Size() == 1);
  CHECK(std::string(sessions["sessions"][0]["client"].GetString()) == "mcp-http");
  CHECK(std::string(sessions["sessions"][0]["owner"].GetString()) == "local");
  CHECK_FALSE(team.daemon->sandbox_processes().empty());

  // The HTTP listener serves the daemon's metrics without sign-in: the call, one open session
  // and one team user (docs/metrics.md).
  const ProbeAnswer metrics = http.request("GET", "/metrics", "", {});
  INFO(metrics.body);
  CHECK(metrics.status == 200);
  CHECK(metrics.header("content-type").starts_with("text/plain; version=0.0.4"));
  CHECK(metrics.body.find("\nkode_gopher_sessions_open 1\n") != std::string::npos);
  CHECK(metrics.body.find("\nkode_gopher_team_users 1\n") != std::string::npos);
  CHECK(metrics.body.find("kode_gopher_calls_total{runtime=") != std::string::npos);
  CHECK(http.request("POST", "/metrics", "", {}).status == 405);

  // DELETE ends it: the daemon session is closed and the sandbox gone; the id is unknown after.
  CHECK(http.request("DELETE", "/mcp", "", {{"Mcp-Session-Id", session}}).status == 200);
  sessions = team.daemon->json(team.daemon->get("/v1/sessions"));
  CHECK(sessions["sessions"].Size() == 0);
  for (int i = 0; i < 50 && !team.daemon->sandbox_processes().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(team.daemon->sandbox_processes().empty());
  const ProbeAnswer after = http.post_mcp(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})", in_session);
  CHECK(after.status == 404);
  CHECK(http.request("DELETE", "/mcp", "", {{"Mcp-Session-Id", session}}).status == 404);
}

TEST_CASE("stateless 2026-07-28 requests: the Mcp-* headers must match the body") {
  TeamDaemon team;
  const HttpProbe http = team.probe();
  const std::string list = R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":)" +
                           modern_meta() + "}}";

  const ProbeAnswer ok = http.post_mcp(list, modern_headers("tools/list"));
  REQUIRE(ok.status == 200);
  CHECK(ok.header("mcp-session-id").empty());
  auto answer = ok.messages();
  REQUIRE(answer.size() == 1);
  CHECK(std::string(answer[0]["result"]["resultType"].GetString()) == "complete");

  SUBCASE("a missing or different Mcp-Method is 400 HeaderMismatch") {
    ProbeAnswer bad = http.post_mcp(list, {{"MCP-Protocol-Version", "2026-07-28"}});
    CHECK(bad.status == 400);
    CHECK(error_code(bad.messages().at(0)) == -32020);
    bad = http.post_mcp(list, modern_headers("prompts/list"));
    CHECK(bad.status == 400);
    CHECK(error_code(bad.messages().at(0)) == -32020);
  }
  SUBCASE("a protocol version header unlike the body's is 400 HeaderMismatch") {
    ProbeHeaders headers{{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "tools/list"}};
    const ProbeAnswer bad = http.post_mcp(list, headers);
    CHECK(bad.status == 400);
    CHECK(error_code(bad.messages().at(0)) == -32020);
  }
  SUBCASE("an unsupported version is 400 with the supported ones") {
    std::string old = list;
    old.replace(old.find("2026-07-28"), 10, "2099-01-01");
    ProbeHeaders headers{{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}};
    const ProbeAnswer bad = http.post_mcp(old, headers);
    CHECK(bad.status == 400);
    const auto messages = bad.messages();
    CHECK(error_code(messages.at(0)) == -32022);
    CHECK(messages.at(0)["error"]["data"]["supported"].Size() == 4);
  }
  SUBCASE("an unknown method is 404 with -32601") {
    const std::string unknown = R"({"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"_meta":)" +
                                modern_meta() + "}}";
    const ProbeAnswer bad = http.post_mcp(unknown, modern_headers("resources/list"));
    CHECK(bad.status == 404);
    CHECK(error_code(bad.messages().at(0)) == -32601);
  }
  SUBCASE("tools/call needs Mcp-Name equal to the tool's name (plain or Base64)") {
    const std::string call = tool_call(7, kHello, R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})");
    ProbeAnswer bad = http.post_mcp(call, modern_headers("tools/call", "gcp_auth_status"));
    CHECK(bad.status == 400);
    CHECK(error_code(bad.messages().at(0)) == -32020);
    const ProbeAnswer good = http.post_mcp(call, modern_headers("tools/call", "=?base64?ZXhlY3V0ZV9nb19jb2Rl?="));
    INFO(good.body);
    REQUIRE(good.status == 200);
    const auto events = good.messages();
    REQUIRE_FALSE(events.empty());
    CHECK(std::string(events.back()["result"]["structuredContent"]["stdout"].GetString()) ==
          "hello over http\n");
    CHECK(std::string(events.back()["result"]["resultType"].GetString()) == "complete");
  }
  SUBCASE("GET and DELETE have no meaning without a session") {
    CHECK(http.request("GET", "/mcp", "", {{"Accept", "text/event-stream"}}).status == 405);
    CHECK(http.request("DELETE", "/mcp", "", {}).status == 405);
  }
}

TEST_CASE("bad HTTP requests get clear errors while others keep being served") {
  TeamDaemon team("auth = none\nmax_request_bytes = 65536\n");
  const HttpProbe http = team.probe();

  ProbeAnswer bad = http.post_mcp("{not json");
  CHECK(bad.status == 400);
  CHECK(error_code(bad.messages().at(0)) == -32700);

  bad = http.post_mcp(std::string(100000, ' '));
  CHECK(bad.status == 413);
  CHECK(bad.body.find("max_request_bytes") != std::string::npos);

  bad = http.post_mcp(initialize_request(), {{"Origin", "https://evil.example"}});
  CHECK(bad.status == 403);
  CHECK(bad.body.find("evil.example") != std::string::npos);

  bad = http.request("POST", "/mcp", initialize_request(), {{"Content-Type", "text/plain"}});
  CHECK(bad.status == 415);

  bad = http.post_mcp(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  CHECK(bad.status == 400);
  CHECK(bad.body.find("Mcp-Session-Id") != std::string::npos);

  bad = http.post_mcp(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
                      {{"Mcp-Session-Id", "0123456789abcdef0123456789abcdef"}});
  CHECK(bad.status == 404);

  CHECK(http.request("GET", "/nowhere", "", {}).status == 404);
  CHECK(http.request("PUT", "/mcp", "", {}).status == 405);

  // A body shorter than its Content-Length (the client hung up halfway) is never read as a
  // shorter request: a prefix of a request can be a valid, different one.
  {
    const std::string sent = initialize_request();
    const int fd = connect_from("127.0.0.1", team.port);
    REQUIRE(fd >= 0);
    const std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(team.port) +
                             "\r\n"
                             "Content-Type: application/json\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Connection: close\r\nContent-Length: " +
                             std::to_string(sent.size() + 50) + "\r\n\r\n";
    const std::string request = head + sent;
    REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size()));
    ::shutdown(fd, SHUT_WR);
    const RawAnswer cut = read_answer(fd, std::chrono::seconds(10));
    ::close(fd);
    INFO(cut.text.substr(0, 400));
    CHECK(cut.status == 400);
    CHECK(cut.body().find("ended after " + std::to_string(sent.size())) != std::string::npos);
  }

  // The server still serves: its own origin is fine, and so is a request without one.
  const ProbeAnswer good = http.post_mcp(initialize_request(), {{"Origin", team.url}});
  CHECK(good.status == 200);
  CHECK_FALSE(good.header("mcp-session-id").empty());
}

TEST_CASE("an idle HTTP session is closed and its sandbox released") {
  TeamDaemon team("auth = none\n", "[team]\nidle_timeout_s = 5\n");
  const HttpProbe http = team.probe();
  const ProbeAnswer init = http.post_mcp(initialize_request());
  const std::string session = init.header("mcp-session-id");
  REQUIRE_FALSE(session.empty());
  const ProbeHeaders in_session{{"Mcp-Session-Id", session}};
  REQUIRE(http.post_mcp(tool_call(2, kHello), in_session).status == 200);
  REQUIRE(team.daemon->json(team.daemon->get("/v1/sessions"))["sessions"].Size() == 1);

  bool closed = false;
  for (int i = 0; i < 60 && !closed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    closed = team.daemon->json(team.daemon->get("/v1/sessions"))["sessions"].Size() == 0;
  }
  CHECK(closed);
  auto all = team.daemon->json(team.daemon->get("/v1/sessions?all=true"));
  REQUIRE(all["sessions"].Size() == 1);
  CHECK(std::string(all["sessions"][0]["close_reason"].GetString()) == "MCP session ended");
  CHECK(http.post_mcp(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", in_session).status == 404);
}

}  // namespace kg::test

namespace kg::test {

TEST_CASE("a user's new session replaces their longest-idle one past max_sessions_per_user") {
  TeamDaemon team("auth = none\n", "[team]\nmax_sessions_per_user = 2\n");
  const HttpProbe http = team.probe();
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    const ProbeAnswer init = http.post_mcp(initialize_request());
    REQUIRE(init.status == 200);
    ids.push_back(init.header("mcp-session-id"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string ping = R"({"jsonrpc":"2.0","id":9,"method":"ping"})";
  CHECK(http.post_mcp(ping, {{"Mcp-Session-Id", ids[0]}}).status == 404);  // the oldest went
  CHECK(http.post_mcp(ping, {{"Mcp-Session-Id", ids[1]}}).status == 200);
  CHECK(http.post_mcp(ping, {{"Mcp-Session-Id", ids[2]}}).status == 200);
  // The stateless lane is extra: it does not count against the limit.
  const std::string list = R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";
  CHECK(http.post_mcp(list, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}}).status == 200);
  CHECK(http.post_mcp(ping, {{"Mcp-Session-Id", ids[1]}}).status == 200);
}

}  // namespace kg::test
