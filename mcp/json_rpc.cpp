#include "json_rpc.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "json_reader.hpp"

namespace kg::mcp {
namespace {

// Requests ids are strings or integers; MCP forbids null, JSON-RPC advises against fractions.
bool is_valid_id(const rapidjson::Value& id) {
  return id.IsString() || id.IsInt64() || id.IsUint64();
}

std::string quoted(std::string_view text) {
  rapidjson::Value value(rapidjson::StringRef(text.data(), text.size()));
  return to_json(value);
}

}  // namespace

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

IncomingMessage parse_message(std::string_view line) {
  IncomingMessage message;
  json::ReadJson read = json::read_json(line, json::kRequestLimits);
  if (const auto& refused = read.refused) {
    const std::string& reason = refused->reason;
    throw RpcError(RpcErrorCode::parse_error,
                   "Parse error at " + refused->position() + ": the message " +
                       (refused->kind == json::JsonRefusal::Kind::syntax ? "is not JSON: " : "") +
                       reason + (reason.ends_with('.') ? "" : ".") +
                       " Send one JSON-RPC message per line.");
  }
  message.document = std::move(read.document);
  rapidjson::Document& doc = message.document;
  if (doc.IsArray()) {
    throw RpcError(RpcErrorCode::invalid_request,
                   "Invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed "
                   "them); send one message per line");
  }
  if (!doc.IsObject()) {
    throw RpcError(RpcErrorCode::invalid_request,
                   "Invalid request: a JSON-RPC message must be a JSON object");
  }
  const rapidjson::Value* id = find_member(&doc, "id");
  const std::string id_json = id != nullptr && is_valid_id(*id) ? to_json(*id) : "null";
  const rapidjson::Value* version = find_member(&doc, "jsonrpc");
  if (version == nullptr || !version->IsString() ||
      std::string_view(version->GetString()) != "2.0") {
    throw RpcError(RpcErrorCode::invalid_request,
                   "Invalid request: \"jsonrpc\" must be \"2.0\"", id_json);
  }
  const rapidjson::Value* method = find_member(&doc, "method");
  if (method == nullptr) {
    if (id != nullptr && (find_member(&doc, "result") != nullptr ||
                          find_member(&doc, "error") != nullptr)) {
      message.kind = IncomingMessage::Kind::response;
      message.id_json = id_json;
      return message;
    }
    throw RpcError(RpcErrorCode::invalid_request,
                   "Invalid request: the message has no \"method\"", id_json);
  }
  if (!method->IsString()) {
    throw RpcError(RpcErrorCode::invalid_request, "Invalid request: \"method\" must be a string",
                   id_json);
  }
  message.method.assign(method->GetString(), method->GetStringLength());
  if (id != nullptr && !is_valid_id(*id)) {
    throw RpcError(RpcErrorCode::invalid_request,
                   "Invalid request: \"id\" must be a string or an integer (MCP forbids null)");
  }
  message.kind = id != nullptr ? IncomingMessage::Kind::request
                               : IncomingMessage::Kind::notification;
  message.id_json = id != nullptr ? id_json : std::string();
  if (const rapidjson::Value* params = find_member(&doc, "params"); params != nullptr) {
    if (params->IsArray()) {
      throw RpcError(RpcErrorCode::invalid_params,
                     "Invalid params: MCP params are an object, not an array", id_json);
    }
    if (!params->IsObject()) {
      throw RpcError(RpcErrorCode::invalid_request,
                     "Invalid request: \"params\" must be an object", id_json);
    }
    message.params = params;
  }
  return message;
}

std::string result_line(std::string_view id_json, std::string_view result_json) {
  std::string line = R"({"jsonrpc":"2.0","id":)";
  line += id_json;
  line += R"(,"result":)";
  line += result_json;
  line += '}';
  return line;
}

std::string error_line(std::string_view id_json, RpcErrorCode code, std::string_view message,
                       const std::optional<std::string>& data_json) {
  std::string line = R"({"jsonrpc":"2.0","id":)";
  line += id_json;
  line += R"(,"error":{"code":)";
  line += std::to_string(static_cast<int>(code));
  line += R"(,"message":)";
  line += quoted(message);
  if (data_json) {
    line += R"(,"data":)";
    line += *data_json;
  }
  line += "}}";
  return line;
}

std::string notification_line(std::string_view method, std::string_view params_json) {
  std::string line = R"({"jsonrpc":"2.0","method":)";
  line += quoted(method);
  line += R"(,"params":)";
  line += params_json;
  line += '}';
  return line;
}

}  // namespace kg::mcp
