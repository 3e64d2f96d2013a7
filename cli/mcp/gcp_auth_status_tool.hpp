// The gcp_auth_status tool: which Google credentials programs get, as
// {mode, credential_type?, email?, project_id?} (CONTRACTS.md §4).
//
// Today the daemon has no credential plugin to ask (creds-adc and creds-workload are not
// built yet), so the tool reads the daemon's plugin list and reports mode "none" when no
// credential plugin is ready, which is the truth: programs run without Google credentials.
// When a credential plugin is loaded but the daemon offers no way to ask it, the tool says so
// as an error instead of guessing. This file is where the real status query will go.
// Called on the tool-call worker thread.
#pragma once

#include "daemon_session_link.hpp"
#include "tool.hpp"

namespace kg::mcp {

class GcpAuthStatusTool final : public Tool {
 public:
  explicit GcpAuthStatusTool(DaemonSessionLink& daemon) : daemon_(daemon) {}

  std::string_view name() const override { return "gcp_auth_status"; }
  rapidjson::Document definition(const ProtocolFeatures& features) const override;
  ToolResult call(const rapidjson::Value* arguments, ToolCallContext& context) override;

 private:
  DaemonSessionLink& daemon_;
};

// The result for a GET /v1/plugins answer.
ToolResult auth_status_from_plugins(const rapidjson::Value& plugins_answer);

}  // namespace kg::mcp
