// The files a program leaves under /app/out, as MCP sees them (docs/mcp.md, "Files out"): the
// resource_link content items of an execute_go_code result (protocol 2025-06-18 and later; older
// revisions read the same list in the result's text), and the answers of resources/read and
// resources/list, which go through the connection's SessionBackend so that a uri is readable only
// in the session that made it (team mode: only by its user).
// Pure functions of their arguments, called on the thread that handles the request.
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "json_rpc.hpp"
#include "session_backend.hpp"
#include "tool.hpp"

namespace kg::mcp {

// The links of an ExecuteResult's `files` (entries without a uri give none).
std::vector<ResourceLink> out_file_links(const std::vector<wire::daemon_api::OutFile>& files);

// Appends the result's links to `content` as resource_link items when the revision has them.
void add_resource_links(rapidjson::Value& content, const ToolResult& result, bool revision_has_links,
                        rapidjson::Document::AllocatorType& allocator);

// {"contents": [{"uri", "mimeType", "text" | "blob"}]}: text for UTF-8 text types, else base64.
// Throws RpcError: invalid_params without a string "uri", resource_not_found when the backend
// has no such file for this connection.
rapidjson::Document read_resource_result(SessionBackend& backend, const IncomingMessage& message);

// {"resources": [{"uri", "name", "mimeType", "size"}]} of the connection's session.
rapidjson::Document list_resources_result(SessionBackend& backend);

}  // namespace kg::mcp
