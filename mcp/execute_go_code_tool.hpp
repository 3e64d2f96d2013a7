// The execute_go_code tool: checks the arguments (exactly one of code / files, optional
// extra_imports and runtime), sends the program to the daemon session as an ExecuteRequest,
// forwards the progress lines, and answers with the ExecuteResult as structuredContent plus its
// text rendering (kg::cli::render_execute_result); isError is the daemon's is_error.
// Called on the tool-call worker thread.
#pragma once

#include <optional>

#include "offered_runtimes.hpp"
#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

class ExecuteGoCodeTool final : public Tool {
 public:
  ExecuteGoCodeTool(SessionBackend& daemon, OfferedRuntimesCache& runtimes)
      : daemon_(daemon), runtimes_(runtimes) {}

  std::string_view name() const override { return "execute_go_code"; }
  rapidjson::Document definition(const ProtocolFeatures& features) const override;
  ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) override;

 private:
  SessionBackend& daemon_;
  OfferedRuntimesCache& runtimes_;
};

// The ExecuteRequest (docs/daemon-api.md) for a call's arguments. Throws ToolArgumentError
// when they do not fit the tool's inputSchema (a runtime is checked against `offered` when the
// daemon said what it offers).
wire::daemon_api::ExecuteRequest execute_request_for(
    const rapidjson::Value* arguments, const std::optional<OfferedRuntimes>& offered);

}  // namespace kg::mcp
