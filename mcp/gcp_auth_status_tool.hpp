// The gcp_auth_status tool: which Google credentials programs get, as
// {mode, credential_type?, email?, project_id?, quota_project_id?, token_expiry?, problem?,
// login_hint?} (docs/contracts.md §4, plus what the daemon's GET /v1/auth knows beyond it), and a
// text line an agent can act on: who programs run as, or what is wrong and how to log in.
// Called on the tool-call worker thread.
#pragma once

#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

class GcpAuthStatusTool final : public Tool {
 public:
  explicit GcpAuthStatusTool(SessionBackend& daemon) : daemon_(daemon) {}

  std::string_view name() const override { return "gcp_auth_status"; }
  rapidjson::Document definition(const ProtocolFeatures& features) const override;
  ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) override;

 private:
  SessionBackend& daemon_;
};

// The result for a GET /v1/auth answer.
ToolResult auth_status_result(const wire::daemon_api::AuthStatus& status);

}  // namespace kg::mcp
