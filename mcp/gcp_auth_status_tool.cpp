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
    "mode": {"type": "string", "enum": ["sealed", "forwarded", "access-token", "workload", "none"]},
    "credential_type": {"type": "string",
                        "description": "e.g. authorized_user, service_account, impersonated_service_account, gce_metadata"},
    "email": {"type": "string"},
    "project_id": {"type": "string"},
    "quota_project_id": {"type": "string"},
    "token_expiry": {"type": "string", "description": "RFC 3339 expiry of the current access token"},
    "problem": {"type": "string", "description": "why programs get no working credentials"},
    "login_hint": {"type": "string", "description": "how the user can log in or fix it"},
    "sealed": {"type": "string", "description": "mode sealed: what programs hold (a placeholder token) and what puts the real token in its place"},
    "program_holds": {"type": "string", "description": "modes access-token, workload and forwarded: what programs hold (the real token; in forwarded also the ADC file) and where they can use it"},
    "signed_in_users_mode": {"type": "string", "enum": ["sealed", "access-token"],
                             "description": "team mode with run_as = user: each signed-in user's calls run as that user's own identity, in this mode; the other members then describe calls without a signed-in user"}
  },
  "additionalProperties": false
})json";

constexpr std::string_view kAnnotations = R"json({
  "title": "Google Cloud credentials status",
  "readOnlyHint": true,
  "idempotentHint": true,
  "openWorldHint": false
})json";

// structuredContent: the members of kOutputSchema that have a value.
std::string structured_auth_status(const wire::daemon_api::AuthStatus& status) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"mode", &status.mode},
      {"credential_type", &status.credential_type},
      {"email", &status.email},
      {"project_id", &status.project_id},
      {"quota_project_id", &status.quota_project_id},
      {"token_expiry", &status.token_expiry},
      {"problem", &status.problem},
      {"login_hint", &status.login_hint},
      {"sealed", &status.sealed},
      {"program_holds", &status.program_holds},
      {"signed_in_users_mode", &status.signed_in_users_mode}};
  rapidjson::Document structured(rapidjson::kObjectType);
  auto& allocator = structured.GetAllocator();
  for (const auto& [name, value] : fields) {
    if (value->empty()) continue;
    structured.AddMember(rapidjson::Value(name, allocator),
                         rapidjson::Value(value->c_str(), allocator), allocator);
  }
  return to_json(structured);
}

}  // namespace

ToolResult auth_status_result(const wire::daemon_api::AuthStatus& status) {
  if (status.mode.empty()) {
    return ToolResult::error(std::string(kTool) + ": the daemon's GET /v1/auth answer has no "
                             "\"mode\": " + wire::daemon_api::encode_auth_status(status));
  }
  ToolResult result;
  result.structured = structured_auth_status(status);
  const std::string& mode = status.mode;
  std::string text = "mode=" + mode + ": ";
  if (mode == "none") {
    text += "programs run without Google credentials (Google Cloud API calls fail with an "
            "authentication error).";
  } else {
    text += "programs run as " +
            (status.email.empty() ? std::string("an identity of unknown email") : status.email) +
            (status.credential_type.empty() ? "" : " (" + status.credential_type + ")") +
            (status.project_id.empty() ? "" : ", project " + status.project_id) +
            (status.token_expiry.empty() ? ""
                                         : "; the current token is valid until " +
                                               status.token_expiry) +
            ".";
  }
  if (!status.sealed.empty()) text += " Sealed: " + status.sealed + ".";
  if (!status.program_holds.empty()) text += " Exposure: " + status.program_holds + ".";
  if (!status.problem.empty()) text += " Problem: " + status.problem + ".";
  if (!status.login_hint.empty()) {
    text += " To fix it (the user, on the daemon's host): " + status.login_hint + ".";
  }
  if (!status.signed_in_users_mode.empty()) {
    text += " Team mode ([team] run_as = user): each signed-in user's calls run as that user's "
            "own Google identity, in mode " + status.signed_in_users_mode +
            "; the above is for calls without a signed-in user.";
  }
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
