#include "out_file_resources.hpp"

#include "base64url.hpp"
#include "utf8_text.hpp"

namespace kg::mcp {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value text(std::string_view value, Allocator& allocator) {
  return rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator);
}

bool is_text_type(std::string_view media_type) {
  return media_type.starts_with("text/") || media_type == "application/json" ||
         media_type == "application/x-ndjson" || media_type == "application/xml" ||
         media_type == "application/yaml" || media_type == "image/svg+xml";
}

rapidjson::Value link_object(const ResourceLink& link, Allocator& allocator) {
  rapidjson::Value item(rapidjson::kObjectType);
  item.AddMember("type", "resource_link", allocator);
  item.AddMember("uri", text(link.uri, allocator), allocator);
  item.AddMember("name", text(link.name, allocator), allocator);
  item.AddMember("mimeType", text(link.mime_type, allocator), allocator);
  item.AddMember("size", link.size, allocator);
  return item;
}

}  // namespace

std::vector<ResourceLink> out_file_links(const std::vector<wire::daemon_api::OutFile>& files) {
  std::vector<ResourceLink> links;
  for (const auto& file : files) {
    if (!file.uri.empty()) links.push_back({file.uri, file.name, file.media_type, file.size});
  }
  return links;
}

void add_resource_links(rapidjson::Value& content, const ToolResult& result, bool revision_has_links,
                        Allocator& allocator) {
  if (!revision_has_links) return;  // the text lists them (result_renderer.cpp)
  for (const auto& link : result.links) content.PushBack(link_object(link, allocator), allocator);
}

rapidjson::Document read_resource_result(SessionBackend& backend, const IncomingMessage& message) {
  const rapidjson::Value* uri = find_member(message.params, "uri");
  if (uri == nullptr || !uri->IsString()) {
    throw RpcError(RpcErrorCode::invalid_params,
                   "Invalid params: resources/read needs \"uri\", a resource_link's uri (a string)",
                   message.id_json);
  }
  const std::string asked(uri->GetString(), uri->GetStringLength());
  ResourceBytes file;
  try {
    file = backend.read_resource(asked);
  } catch (const BackendRefusedError& e) {
    if (e.http_status() != 404) throw;
    throw RpcError(RpcErrorCode::resource_not_found,
                   "Resource not found: " + std::string(e.what()) +
                       " (a file is readable only in the session whose call wrote it, while that "
                       "session is open)",
                   message.id_json, "{\"uri\":" + to_json(*uri) + "}");
  }
  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  rapidjson::Value item(rapidjson::kObjectType);
  item.AddMember("uri", text(asked, allocator), allocator);
  item.AddMember("mimeType", text(file.media_type, allocator), allocator);
  if (is_text_type(file.media_type) && json::is_valid_utf8(file.content)) {
    item.AddMember("text", text(file.content, allocator), allocator);
  } else {
    item.AddMember("blob", text(codec::base64_encode(file.content), allocator), allocator);
  }
  rapidjson::Value contents(rapidjson::kArrayType);
  contents.PushBack(item, allocator);
  result.AddMember("contents", contents, allocator);
  return result;
}

rapidjson::Document list_resources_result(SessionBackend& backend) {

  rapidjson::Document result(rapidjson::kObjectType);
  auto& allocator = result.GetAllocator();
  rapidjson::Value resources(rapidjson::kArrayType);
  for (const auto& link : out_file_links(backend.list_resources())) {
    rapidjson::Value item = link_object(link, allocator);
    item.RemoveMember("type");
    resources.PushBack(item, allocator);
  }
  result.AddMember("resources", resources, allocator);
  return result;
}

}  // namespace kg::mcp
