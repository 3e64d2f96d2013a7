// check_modern_headers and rpc_error_reply (mcp_endpoint.hpp): the 2026-07-28 request-metadata
// rules of streamable HTTP.
#include <Poco/Base64Decoder.h>

#include <sstream>

#include "json_rpc.hpp"
#include "mcp_endpoint.hpp"
#include "protocol_versions.hpp"

namespace kg::team {
namespace {

constexpr std::string_view kBase64Prefix = "=?base64?";
constexpr std::string_view kBase64Suffix = "?=";

// A header value as the spec's Value Encoding gives it: Base64 between the sentinels, else
// as it is. nullopt when the Base64 is malformed.
std::optional<std::string> decode_header_value(std::string value) {
  // Poco's header parser takes "=?" as the start of an RFC 2047 encoded word and, finding no
  // charset/encoding it knows, drops those two characters: put them back.
  if (value.starts_with(kBase64Prefix.substr(2)) && value.ends_with(kBase64Suffix)) {
    value.insert(0, "=?");
  }
  if (!value.starts_with(kBase64Prefix) || !value.ends_with(kBase64Suffix) ||
      value.size() < kBase64Prefix.size() + kBase64Suffix.size()) {
    return value;
  }
  const std::string encoded = value.substr(
      kBase64Prefix.size(), value.size() - kBase64Prefix.size() - kBase64Suffix.size());
  try {
    std::istringstream in(encoded);
    Poco::Base64Decoder decoder(in);
    std::string decoded((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
    return decoded;
  } catch (...) {
    return std::nullopt;
  }
}

// The methods a 2026-07-28 request may name: that revision has no initialize and no ping.
bool is_modern_method(const std::string& method) {
  return method == "server/discover" || method == "tools/list" || method == "tools/call" ||
         method == "prompts/list" || method == "prompts/get";
}

HttpReply mismatch(const mcp::IncomingMessage& message, const std::string& what) {
  return rpc_error_reply(400, message.id_json.empty() ? "null" : message.id_json,
                         mcp::RpcErrorCode::header_mismatch, "Header mismatch: " + what);
}

}  // namespace

HttpReply rpc_error_reply(int status, const std::string& id_json, mcp::RpcErrorCode code,
                          const std::string& message) {
  HttpReply reply;
  reply.status = status;
  reply.body = mcp::error_line(id_json, code, message);
  return reply;
}

std::optional<HttpReply> check_modern_headers(const HttpExchange& request,
                                              const mcp::IncomingMessage& message,
                                              const std::optional<std::string>& meta_version) {
  const std::string id = message.id_json.empty() ? "null" : message.id_json;
  const bool is_request = message.kind == mcp::IncomingMessage::Kind::request;
  if (is_request && !is_modern_method(message.method)) {
    return rpc_error_reply(404, id, mcp::RpcErrorCode::method_not_found,
                           "Method not found: " + message.method + " (not a " +
                               std::string(mcp::kModernVersion) + " method of this server)");
  }
  if (!meta_version) {
    return rpc_error_reply(400, id, mcp::RpcErrorCode::invalid_params,
                           "Invalid params: a " + std::string(mcp::kModernVersion) +
                               " request must carry _meta \"" +
                               std::string(mcp::kProtocolVersionMetaKey) + "\"");
  }
  const std::string& version = *meta_version;
  const std::string header_version = request.header("mcp-protocol-version");
  if (header_version.empty()) {
    return mismatch(message, "the MCP-Protocol-Version header is missing; it must be \"" +
                                 version + "\", the request's _meta protocol version");
  }
  if (header_version != version) {
    return mismatch(message, "MCP-Protocol-Version header value '" + header_version +
                                 "' does not match body value '" + version + "'");
  }
  if (version != mcp::kModernVersion) {
    HttpReply reply;
    reply.status = 400;
    reply.body = mcp::error_line(
        id, mcp::RpcErrorCode::unsupported_protocol_version, "Unsupported protocol version",
        R"({"supported":)" + mcp::supported_versions_json() + R"(,"requested":)" +
            mcp::to_json(rapidjson::Value(rapidjson::StringRef(version.c_str()))) + "}");
    return reply;
  }
  const std::string method_header = request.header("mcp-method");
  if (method_header != message.method) {
    return mismatch(message, method_header.empty()
                                 ? "the Mcp-Method header is missing; it must be '" +
                                       message.method + "'"
                                 : "Mcp-Method header value '" + method_header +
                                       "' does not match body value '" + message.method + "'");
  }
  if (message.method == "tools/call" || message.method == "prompts/get") {
    const rapidjson::Value* name = mcp::find_member(message.params, "name");
    if (name != nullptr && name->IsString()) {
      const std::string raw = request.header("mcp-name");
      const std::optional<std::string> decoded = decode_header_value(raw);
      if (raw.empty()) {
        return mismatch(message, "the Mcp-Name header is missing; it must be '" +
                                     std::string(name->GetString()) + "'");
      }
      if (!decoded || *decoded != name->GetString()) {
        return mismatch(message, "Mcp-Name header value '" + raw +
                                     "' does not match body value '" + name->GetString() + "'");
      }
    }
  }
  const rapidjson::Value* capabilities = mcp::find_member(
      mcp::find_member(message.params, "_meta"), mcp::kClientCapabilitiesMetaKey);
  if (is_request && (capabilities == nullptr || !capabilities->IsObject())) {
    return rpc_error_reply(400, id, mcp::RpcErrorCode::invalid_params,
                           "Invalid params: a " + std::string(mcp::kModernVersion) +
                               " request must carry _meta \"" +
                               std::string(mcp::kClientCapabilitiesMetaKey) + "\" (an object)");
  }
  return std::nullopt;
}

}  // namespace kg::team
