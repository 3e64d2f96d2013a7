#include "gcp_auth_status_tool.hpp"

#include "json_rpc.hpp"
#include "json_members.hpp"
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
    "mode": {"type": "string", "enum": ["sealed", "forwarded", "access-token", "workload", "none"]},
    "credential_type": {"type": "string",
                        "description": "e.g. authorized_user, service_account, impersonated_service_account, gce_metadata"},
    "email": {"type": "string"},
    "project_id": {"type": "string"},
    "quota_project_id": {"type": "string"},
    "token_expiry": {"type": "string", "description": "RFC 3339 expiry of the current access token"},
    "problem": {"type": "string", "description": "why programs get no working credentials"},
    "login_hint": {"type": "string", "description": "how the user can log in or fix it"},
    "sealed": {"type": "string", "description": "mode sealed: what programs hold (a placeholder token) and what puts the real token in its place"}
  },
  "additionalProperties": false
})json";

constexpr std::string_view kAnnotations = R"json({
  "title": "Google Cloud credentials status",
  "readOnlyHint": true,
  "idempotentHint": true,
  "openWorldHint": false
})json";

constexpr const char* kFields[] = {"mode",          "credential_type",  "email",
                                   "project_id",    "quota_project_id", "token_expiry",
                                   "problem",       "login_hint",       "sealed"};

}  // namespace

ToolResult auth_status_result(const rapidjson::Value& auth_answer) {
  const std::string mode = json::string_member(auth_answer, "mode");
  if (mode.empty()) {
    return ToolResult::error(std::string(kTool) + ": the daemon's GET /v1/auth answer has no "
                             "\"mode\": " + to_json(auth_answer));
  }
  rapidjson::Document structured(rapidjson::kObjectType);
  auto& allocator = structured.GetAllocator();
  for (const char* field : kFields) {
    const std::string value = json::string_member(auth_answer, field);
    if (value.empty()) continue;
    structured.AddMember(rapidjson::Value(field, allocator),
                         rapidjson::Value(value.c_str(), allocator), allocator);
  }
  ToolResult result;
  result.structured = to_json(structured);
  const std::string problem = json::string_member(auth_answer, "problem");
  const std::string email = json::string_member(auth_answer, "email");
  const std::string type = json::string_member(auth_answer, "credential_type");
  const std::string project = json::string_member(auth_answer, "project_id");
  const std::string expiry = json::string_member(auth_answer, "token_expiry");
  std::string text = "mode=" + mode + ": ";
  if (mode == "none") {
    text += "programs run without Google credentials (Google Cloud API calls fail with an "
            "authentication error).";
  } else {
    text += "programs run as " + (email.empty() ? std::string("an identity of unknown email") : email) +
            (type.empty() ? "" : " (" + type + ")") +
            (project.empty() ? "" : ", project " + project) +
            (expiry.empty() ? "" : "; the current token is valid until " + expiry) + ".";
  }
  const std::string sealed = json::string_member(auth_answer, "sealed");
  if (!sealed.empty()) text += " Sealed: " + sealed + ".";
  if (!problem.empty()) text += " Problem: " + problem + ".";
  const std::string hint = json::string_member(auth_answer, "login_hint");
  if (!hint.empty()) text += " To fix it (the user, on the daemon's host): " + hint + ".";
  result.text = text;
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
    return auth_status_result(daemon_.auth_status());
  } catch (...) {
    return tool_failure(kTool, std::current_exception());
  }
}

}  // namespace kg::mcp
