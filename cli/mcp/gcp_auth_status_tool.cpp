#include "gcp_auth_status_tool.hpp"

#include "json_rpc.hpp"
#include "tool_definition.hpp"
#include "tool_descriptions.hpp"
#include "tool_failure.hpp"

namespace kg::mcp {
namespace {

constexpr std::string_view kTool = "gcp_auth_status";

constexpr std::string_view kInputSchema = R"json({
  "type": "object",
  "properties": {},
  "additionalProperties": false
})json";

constexpr std::string_view kOutputSchema = R"json({
  "type": "object",
  "required": ["mode"],
  "properties": {
    "mode": {"type": "string", "enum": ["forwarded", "access-token", "workload", "none"]},
    "credential_type": {"type": "string",
                        "description": "e.g. authorized_user, service_account, impersonated_service_account"},
    "email": {"type": "string"},
    "project_id": {"type": "string"}
  },
  "additionalProperties": false
})json";

constexpr std::string_view kAnnotations = R"json({
  "title": "Google Cloud credentials status",
  "readOnlyHint": true,
  "idempotentHint": true,
  "openWorldHint": false
})json";

std::string string_member(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* value = find_member(&object, name);
  return value != nullptr && value->IsString() ? value->GetString() : "";
}

}  // namespace

ToolResult auth_status_from_plugins(const rapidjson::Value& plugins_answer) {
  const rapidjson::Value* plugins = find_member(&plugins_answer, "plugins");
  if (plugins == nullptr || !plugins->IsArray()) {
    return ToolResult::error(std::string(kTool) + ": the daemon's GET /v1/plugins answer has no "
                             "\"plugins\" array: " + to_json(plugins_answer));
  }
  std::string ready;
  for (const auto& plugin : plugins->GetArray()) {
    if (string_member(plugin, "kind") == "credentials" &&
        string_member(plugin, "state") == "ready") {
      ready += (ready.empty() ? "" : ", ") + string_member(plugin, "name");
    }
  }
  if (!ready.empty()) {
    return ToolResult::error(std::string(kTool) + ": the daemon has the credential plugin(s) " +
                             ready + " loaded, but this kode-gopher cannot ask them for their "
                             "status yet; run `kode-gopher auth status` on the daemon's host");
  }
  ToolResult result;
  result.structured = R"({"mode":"none"})";
  result.text =
      "mode=none: no credential plugin is configured in the kode-gopher daemon, so programs run "
      "without Google credentials (Google Cloud API calls fail with an authentication error). "
      "Enable a credential plugin (creds-adc on a workstation, creds-workload in a cluster) in "
      "the daemon's configuration to give programs short-lived credentials.";
  return result;
}

rapidjson::Document GcpAuthStatusTool::definition(const ProtocolFeatures& features) const {
  return build_tool_definition({std::string(kTool), "Google Cloud credentials status",
                                gcp_auth_status_description(), std::string(kInputSchema),
                                std::string(kOutputSchema), std::string(kAnnotations)},
                               features);
}

ToolResult GcpAuthStatusTool::call(const rapidjson::Value* arguments, ToolCallContext&) {
  try {
    const ToolArguments args(kTool, arguments, {});
    return auth_status_from_plugins(daemon_.plugins());
  } catch (...) {
    return tool_failure(kTool, std::current_exception());
  }
}

}  // namespace kg::mcp
