// execute_go_code offers the runtimes the daemon's GET /v1/plugins lists, not a list compiled
// into mcp/: a runtime a plugin brings shows up in the schemas and the description, a name the
// daemon does not offer is refused with its list, and without the daemon's answer the tool
// takes any name and lets the daemon answer for it.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "execute_go_code_tool.hpp"
#include "json_rpc.hpp"
#include "json_text.hpp"
#include "offered_runtimes.hpp"
#include "protocol_versions.hpp"
#include "session_backend.hpp"
#include "tool.hpp"

namespace {

constexpr const char* kPluginsAnswer = R"({"plugins": [], "runtimes": [
  {"name": "compiled-go", "available": true, "default": false,
   "description": "Builds the program with go build"},
  {"name": "tinygo", "available": true, "default": true, "description": "Builds with TinyGo"},
  {"name": "auto", "available": true, "default": false, "chooses": ["tinygo", "compiled-go"],
   "description": "gives the call to tinygo, which hands it to compiled-go"}]})";

class PluginsBackend final : public kg::mcp::SessionBackend {
 public:
  explicit PluginsBackend(bool reachable) : reachable_(reachable) {}
  kg::wire::daemon_api::ExecuteResult execute(const kg::wire::daemon_api::ExecuteRequest& sent,
                                              const kg::mcp::PhaseHandler&,
                                              const kg::mcp::OutputHandler&) override {
    request = kg::wire::daemon_api::encode_execute_request(sent);
    kg::wire::daemon_api::ExecuteResult answer;
    answer.status = "ok";
    return answer;
  }
  kg::wire::daemon_api::DocsAnswer package_docs(const kg::wire::daemon_api::DocsRequest&) override {
    return {};
  }
  kg::wire::daemon_api::PluginsListing plugins() override {
    ++asked;
    if (!reachable_) throw std::runtime_error("no daemon listens");
    return kg::wire::daemon_api::decode_plugins_listing(
        kg::cli::parse_json(kPluginsAnswer, "plugins"));
  }
  kg::wire::daemon_api::AuthStatus auth_status() override { return {}; }
  void prepare_for_next_call() noexcept override {}
  void cancel_running_call() noexcept override {}
  void close_session() noexcept override {}
  std::string request;
  int asked = 0;

 private:
  bool reachable_;
};

class NoContext final : public kg::mcp::ToolCallContext {
 public:
  void phase_reached(std::string_view, std::string_view) override {}
  bool cancelled() const override { return false; }
};

std::string definition_json(kg::mcp::ExecuteGoCodeTool& tool) {
  return kg::mcp::to_json(tool.definition(kg::mcp::features_for("2025-06-18")));
}

}  // namespace

TEST_CASE("the schemas and the description list what the daemon's plugins offer") {
  PluginsBackend backend(true);
  kg::mcp::OfferedRuntimesCache runtimes(backend);
  kg::mcp::ExecuteGoCodeTool tool(backend, runtimes);
  const auto definition = kg::cli::parse_json(definition_json(tool), "definition");
  const auto& input_runtime = definition["inputSchema"]["properties"]["runtime"];
  REQUIRE(input_runtime["enum"].Size() == 3);
  CHECK(std::string(input_runtime["enum"][1].GetString()) == "tinygo");
  CHECK(std::string(input_runtime["enum"][2].GetString()) == "auto");
  const std::string what = input_runtime["description"].GetString();
  CHECK(what.find("tinygo: Builds with TinyGo") != std::string::npos);
  CHECK(what.find("daemon's default (tinygo)") != std::string::npos);
  const auto& output_runtime = definition["outputSchema"]["properties"]["runtime"];
  REQUIRE(output_runtime["enum"].Size() == 2);  // auto resolves to one of the plugins' runtimes
  CHECK(std::string(definition["description"].GetString()).find("(compiled-go, tinygo, auto)") !=
        std::string::npos);
  // Asked once for the connection.
  definition_json(tool);
  CHECK(backend.asked == 1);
}

TEST_CASE("a runtime the daemon does not offer is refused with its list") {
  PluginsBackend backend(true);
  kg::mcp::OfferedRuntimesCache runtimes(backend);
  kg::mcp::ExecuteGoCodeTool tool(backend, runtimes);
  NoContext context;
  const auto yaegi = kg::cli::parse_json(R"({"code": "package main", "runtime": "yaegi"})", "a");
  const auto refused = tool.call(&yaegi, context);
  CHECK(refused.is_error);
  CHECK(refused.text.find("runtime \"yaegi\" is not available; available runtimes: compiled-go, "
                          "tinygo, auto") != std::string::npos);
  CHECK(backend.request.empty());
  const auto tinygo = kg::cli::parse_json(R"({"code": "package main", "runtime": "tinygo"})", "b");
  CHECK_FALSE(tool.call(&tinygo, context).is_error);
  CHECK(backend.request == R"({"code":"package main","runtime":"tinygo"})");
}

TEST_CASE("without the daemon's answer the runtime is any name, and the daemon is asked again") {
  PluginsBackend backend(false);
  kg::mcp::OfferedRuntimesCache runtimes(backend);
  kg::mcp::ExecuteGoCodeTool tool(backend, runtimes);
  const auto definition = kg::cli::parse_json(definition_json(tool), "definition");
  const auto& input_runtime = definition["inputSchema"]["properties"]["runtime"];
  CHECK_FALSE(input_runtime.HasMember("enum"));
  CHECK(std::string(input_runtime["description"].GetString()).find("kode-gopher plugins") !=
        std::string::npos);
  CHECK_FALSE(definition["outputSchema"]["properties"]["runtime"].HasMember("enum"));
  NoContext context;
  const auto call = kg::cli::parse_json(R"({"code": "package main", "runtime": "tinygo"})", "c");
  CHECK_FALSE(tool.call(&call, context).is_error);
  CHECK(backend.request == R"({"code":"package main","runtime":"tinygo"})");
  CHECK(backend.asked == 2);
}
