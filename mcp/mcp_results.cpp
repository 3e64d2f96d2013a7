// The result objects of McpServer's methods, and the parts the 2026-07-28 revision adds to
// every result (resultType, the server's identity in _meta).
#include "mcp_server.hpp"

#include "json_reader.hpp"
#include "json_members.hpp"
#include "out_file_resources.hpp"
#include "system_prompt.hpp"
#include "tool_descriptions.hpp"

namespace kg::mcp {
namespace {

// Tool definitions change only with the binary: clients may cache the list for an hour.
constexpr std::uint64_t kListTtlMs = 3'600'000;

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value text(std::string_view value, Allocator& allocator) {
  return rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator);
}

rapidjson::Value parsed(const std::string& json, Allocator& allocator) {
  // A tool's structured result carries a program's result: read like any of the daemon's
  // answers. Our own text, so a refusal cannot happen; it would leave null.
  json::ReadJson part = json::read_json(json, json::kDaemonAnswerLimits, &allocator);
  rapidjson::Value value;
  value.Swap(part.document);  // its values live in `allocator`
  return value;
}

rapidjson::Value implementation(const ServerIdentity& identity, Allocator& allocator) {
  rapidjson::Value info(rapidjson::kObjectType);
  info.AddMember("name", text(identity.name, allocator), allocator);
  info.AddMember("title", text(identity.title, allocator), allocator);
  info.AddMember("version", text(identity.version, allocator), allocator);
  return info;
}

rapidjson::Value server_capabilities(Allocator& allocator) {
  rapidjson::Value tools(rapidjson::kObjectType);
  tools.AddMember("listChanged", false, allocator);
  rapidjson::Value prompts(rapidjson::kObjectType);
  prompts.AddMember("listChanged", false, allocator);
  rapidjson::Value capabilities(rapidjson::kObjectType);
  capabilities.AddMember("tools", tools, allocator);
  capabilities.AddMember("prompts", prompts, allocator);
  // The files calls leave under /app/out (out_file_resources.hpp); no subscriptions.
  rapidjson::Value resources(rapidjson::kObjectType);
  resources.AddMember("subscribe", false, allocator);
  resources.AddMember("listChanged", false, allocator);
  capabilities.AddMember("resources", resources, allocator);
  return capabilities;
}

// The Prompt object of prompts/list for the one prompt, the system prompt. It takes no
// arguments, so it lists none.
rapidjson::Value system_prompt_entry(const ProtocolFeatures& features, Allocator& allocator) {
  rapidjson::Value prompt(rapidjson::kObjectType);
  prompt.AddMember("name", text(kSystemPromptName, allocator), allocator);
  if (features.titles) prompt.AddMember("title", text(kSystemPromptTitle, allocator), allocator);
  prompt.AddMember("description", text(kSystemPromptDescription, allocator), allocator);
  return prompt;
}

}  // namespace

rapidjson::Document McpServer::initialize_result(const IncomingMessage& message) {
  const rapidjson::Value* requested = find_member(message.params, "protocolVersion");
  if (requested == nullptr || !requested->IsString()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: initialize needs \"protocolVersion\" (a string such as \"" +
                       std::string(kLatestLegacyVersion) + "\")",
                   message.id_json);
  }
  const std::string_view version = negotiate_legacy_version(requested->GetString());
  {
    std::lock_guard lock(version_mutex_);
    legacy_version_ = std::string(version);
  }
  const rapidjson::Value* client_info = find_member(message.params, "clientInfo");
  static const rapidjson::Value kNoClient;
  const rapidjson::Value& client = client_info ? *client_info : kNoClient;
  logger_.log(log::LogLevel::info,
              "Client " + json::string_member(client, "name") + " " +
                  json::string_member(client, "version") +
                  " asked for protocol " + requested->GetString() + "; serving " +
                  std::string(version));

  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  result.AddMember("protocolVersion", text(version, allocator), allocator);
  rapidjson::Value capabilities = server_capabilities(allocator);
  if (features_for(version).tasks) ConnectionTasks::add_capabilities(capabilities, allocator);
  result.AddMember("capabilities", capabilities, allocator);
  result.AddMember("serverInfo", implementation(identity_, allocator), allocator);
  result.AddMember("instructions", text(server_instructions(), allocator), allocator);
  return result;
}

rapidjson::Document McpServer::discover_result() const {
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  result.AddMember("supportedVersions", parsed(supported_versions_json(), allocator), allocator);
  result.AddMember("capabilities", server_capabilities(allocator), allocator);
  result.AddMember("instructions", text(server_instructions(), allocator), allocator);
  result.AddMember("ttlMs", kListTtlMs, allocator);
  result.AddMember("cacheScope", "public", allocator);
  return result;
}

rapidjson::Document McpServer::list_tools_result(const ProtocolFeatures& features) const {
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  rapidjson::Value tools = parsed(tools_.list_json(features), allocator);
  if (features.tasks) ConnectionTasks::mark_tools(tools, allocator);
  result.AddMember("tools", tools, allocator);
  if (features.modern) {  // CacheableResult: required from 2026-07-28 on
    result.AddMember("ttlMs", kListTtlMs, allocator);
    result.AddMember("cacheScope", "public", allocator);
  }
  return result;
}

rapidjson::Document McpServer::list_prompts_result(const ProtocolFeatures& features) const {
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  rapidjson::Value prompts(rapidjson::kArrayType);
  prompts.PushBack(system_prompt_entry(features, allocator), allocator);
  result.AddMember("prompts", prompts, allocator);
  if (features.modern) {  // CacheableResult, as for tools/list
    result.AddMember("ttlMs", kListTtlMs, allocator);
    result.AddMember("cacheScope", "public", allocator);
  }
  return result;
}

rapidjson::Document McpServer::get_prompt_result(const IncomingMessage& message) const {
  const rapidjson::Value* name = find_member(message.params, "name");
  if (name == nullptr || !name->IsString()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: prompts/get needs \"name\", the prompt's name (a string)",
                   message.id_json);
  }
  if (std::string_view(name->GetString(), name->GetStringLength()) != kSystemPromptName) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: unknown prompt \"" + std::string(name->GetString()) +
                       "\"; the prompts are " + std::string(kSystemPromptName),
                   message.id_json);
  }
  const rapidjson::Value* arguments = find_member(message.params, "arguments");
  if (arguments != nullptr && !arguments->IsNull() &&
      !(arguments->IsObject() && arguments->MemberCount() == 0)) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: prompt \"" + std::string(kSystemPromptName) +
                       "\" takes no arguments",
                   message.id_json);
  }
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  rapidjson::Value content(rapidjson::kObjectType);
  content.AddMember("type", "text", allocator);
  content.AddMember("text", text(system_prompt_text(), allocator), allocator);
  rapidjson::Value user_message(rapidjson::kObjectType);
  user_message.AddMember("role", "user", allocator);
  user_message.AddMember("content", content, allocator);
  rapidjson::Value messages(rapidjson::kArrayType);
  messages.PushBack(user_message, allocator);
  result.AddMember("description", text(kSystemPromptDescription, allocator), allocator);
  result.AddMember("messages", messages, allocator);
  return result;
}

std::string McpServer::finish(rapidjson::Document result, const ProtocolFeatures& features) const {
  if (features.modern) {
    auto& allocator = result.GetAllocator();
    result.AddMember("resultType", "complete", allocator);
    rapidjson::Value meta(rapidjson::kObjectType);
    meta.AddMember(rapidjson::Value(kServerInfoMetaKey.data(),
                                    static_cast<rapidjson::SizeType>(kServerInfoMetaKey.size()),
                                    allocator),
                   implementation(identity_, allocator), allocator);
    result.AddMember("_meta", meta, allocator);
  }
  return to_json(result);
}

rapidjson::Document call_tool_result(const ToolResult& result, const ProtocolFeatures& features) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& allocator = doc.GetAllocator();
  rapidjson::Value block(rapidjson::kObjectType);
  block.AddMember("type", "text", allocator);
  block.AddMember("text", text(result.text, allocator), allocator);
  rapidjson::Value content(rapidjson::kArrayType);
  content.PushBack(block, allocator);
  add_resource_links(content, result, features.structured_output, allocator);
  doc.AddMember("content", content, allocator);
  if (features.structured_output && result.structured) {
    doc.AddMember("structuredContent", parsed(*result.structured, allocator), allocator);
  }
  doc.AddMember("isError", result.is_error, allocator);
  return doc;
}

}  // namespace kg::mcp
