// The execute_go_code tool: checks the arguments (exactly one of code / files, optional
// extra_imports and runtime), sends the program to the daemon session as an ExecuteRequest,
// forwards the progress lines, and answers with the ExecuteResult as structuredContent plus its
// text rendering (kg::cli::render_execute_result); isError is the daemon's is_error.
// Called on the tool-call worker thread.
#pragma once

#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

class ExecuteGoCodeTool final : public Tool {
 public:
  explicit ExecuteGoCodeTool(SessionBackend& daemon) : daemon_(daemon) {}

  std::string_view name() const override { return "execute_go_code"; }
  rapidjson::Document definition(const ProtocolFeatures& features) const override;
  ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) override;

 private:
  SessionBackend& daemon_;
};

// The ExecuteRequest JSON (docs/daemon-api.md) for a call's arguments. Throws ToolArgumentError
// when they do not fit the tool's inputSchema.
std::string execute_request_for(const rapidjson::Value* arguments);

}  // namespace kg::mcp
