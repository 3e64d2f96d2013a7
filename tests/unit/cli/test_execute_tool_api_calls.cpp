// execute_go_code's side of the API policy and audit, with a stand-in for the daemon: the
// api_policy argument becomes the request's, and a result's api_calls reach the agent short
// (at most 10 in the text and the structured content; the totals still count them all).
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "execute_go_code_tool.hpp"
#include "json_text.hpp"
#include "session_backend.hpp"
#include "tool.hpp"

namespace {

class RecordingBackend final : public kg::mcp::SessionBackend {
 public:
  explicit RecordingBackend(std::string answer) : answer_(std::move(answer)) {}
  // What the socket link would send and read: the codecs' text, both ways.
  kg::wire::daemon_api::ExecuteResult execute(const kg::wire::daemon_api::ExecuteRequest& sent,
                                              const kg::mcp::PhaseHandler&,
                                              const kg::mcp::OutputHandler&) override {
    request = kg::wire::daemon_api::encode_execute_request(sent);
    return kg::wire::daemon_api::decode_execute_result(
        kg::cli::parse_json(answer_, "the stand-in's answer"));
  }
  kg::wire::daemon_api::DocsAnswer package_docs(const kg::wire::daemon_api::DocsRequest&) override {
    return {};
  }
  kg::wire::daemon_api::PluginsListing plugins() override {
    throw std::runtime_error("no plugins listing in this test");
  }
  kg::wire::daemon_api::AuthStatus auth_status() override { return {}; }
  void prepare_for_next_call() noexcept override {}
  void cancel_running_call() noexcept override {}
  void close_session() noexcept override {}
  std::string request;

 private:
  std::string answer_;
};

class NoContext final : public kg::mcp::ToolCallContext {
 public:
  void phase_reached(std::string_view, std::string_view) override {}
  bool cancelled() const override { return false; }
};

std::string answer_with_api_calls(int listed, int count) {
  std::string calls;
  for (int i = 0; i < listed; ++i) {
    calls += std::string(i ? "," : "") + R"({"service":"storage","method":"storage.objects.get","resource":"b/b1/o/)" +
             std::to_string(i) +
             R"(","read":true,"http_status":200,"duration_us":1000,"request_bytes":0,"response_bytes":10})";
  }
  return R"({"call_id":1,"session_id":"s-1","phase":"run","mode":"verbatim","runtime":"compiled-go",)"
         R"("status":"ok","exit_code":0,"duration_ms":5,"queue_ms":0,"setup_ms":1,"build_ms":1,)"
         R"("run_ms":1,"tidied":false,"cache_hit":false,"is_error":false,"api_calls":{"count":)" +
         std::to_string(count) + R"(,"refused":0,"bytes":)" + std::to_string(10 * listed) +
         R"(,"dropped":)" + std::to_string(count - listed) + R"(,"calls":[)" + calls + "]}}";
}

}  // namespace

TEST_CASE("execute_go_code sends api_policy and shows the agent at most 10 API requests") {
  RecordingBackend backend(answer_with_api_calls(15, 20));
  kg::mcp::OfferedRuntimesCache runtimes(backend);
  kg::mcp::ExecuteGoCodeTool tool(backend, runtimes);
  NoContext context;
  const auto arguments = kg::cli::parse_json(
      R"({"code":"package main","api_policy":{"read_only":true,"buckets":["b-1"]}})", "test");
  const auto result = tool.call(&arguments, context);
  CHECK(backend.request ==
        R"({"code":"package main","api_policy":{"read_only":true,"buckets":["b-1"]}})");
  CHECK_FALSE(result.is_error);
  REQUIRE(result.structured);
  const auto structured = kg::cli::parse_json(*result.structured, "structured");
  const auto& api = structured["api_calls"];
  CHECK(api["calls"].Size() == 10);
  CHECK(api["count"].GetUint64() == 20);
  CHECK(api["dropped"].GetUint64() == 10);  // 5 the daemon left out, 5 more for the agent
  CHECK(result.text.find("── api calls: 20, 150B ──\n") != std::string::npos);
  CHECK(result.text.find("storage.objects.get b/b1/o/9 200 1ms 10B\n... 10 more") != std::string::npos);
  CHECK(result.text.find("b/b1/o/10 ") == std::string::npos);
}

TEST_CASE("a short api_calls list reaches the agent unchanged") {
  RecordingBackend backend(answer_with_api_calls(3, 3));
  kg::mcp::OfferedRuntimesCache runtimes(backend);
  kg::mcp::ExecuteGoCodeTool tool(backend, runtimes);
  NoContext context;
  const auto arguments = kg::cli::parse_json(R"({"code":"package main"})", "test");
  const auto result = tool.call(&arguments, context);
  CHECK(backend.request == R"({"code":"package main"})");
  const auto structured = kg::cli::parse_json(*result.structured, "structured");
  CHECK(structured["api_calls"]["calls"].Size() == 3);
  CHECK(structured["api_calls"]["dropped"].GetUint64() == 0);
}
