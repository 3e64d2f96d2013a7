// JSON-RPC 2.0 framing for the MCP stdio server: classifying one incoming line (request,
// notification, or a client's response, which this server never asks for) and writing the
// response and notification lines. Requests ids are kept as their compact JSON text ("7" or
// "\"abc\""), which is all the server needs to echo them and to match notifications/cancelled.
// Pure functions; any thread.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "json_members.hpp"

namespace kg::mcp {

// The error codes this server answers with (JSON-RPC 2.0 and MCP 2026-07-28).
enum class RpcErrorCode : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  unsupported_protocol_version = -32022,
  header_mismatch = -32020,  // streamable HTTP: a Mcp-* header disagrees with the body
  server_busy = -32000,      // streamable HTTP: a per-user limit; the HTTP status says 429
  resource_not_found = -32002,  // resources/read of a uri this connection cannot read
};

// A message that must be answered with a JSON-RPC error. id_json is the request's id, or "null"
// when the id could not be read; data_json, when set, becomes the error's `data` member.
class RpcError : public std::runtime_error {
 public:
  RpcError(RpcErrorCode code, const std::string& message, std::string id_json = "null",
           std::optional<std::string> data_json = std::nullopt)
      : std::runtime_error(message),
        code_(code),
        id_json_(std::move(id_json)),
        data_json_(std::move(data_json)) {}
  RpcErrorCode code() const noexcept { return code_; }
  const std::string& id_json() const noexcept { return id_json_; }
  const std::optional<std::string>& data_json() const noexcept { return data_json_; }

 private:
  RpcErrorCode code_;
  std::string id_json_;
  std::optional<std::string> data_json_;
};

struct IncomingMessage {
  enum class Kind { request, notification, response };
  Kind kind = Kind::notification;
  std::string id_json;  // requests only
  std::string method;   // requests and notifications
  rapidjson::Document document;
  // The params object, or nullptr when the message has none. Points into `document`.
  const rapidjson::Value* params = nullptr;
};

// Parses one line. Throws RpcError: parse_error for text that is not JSON, invalid_request for
// JSON that is not a JSON-RPC 2.0 message (a batch, a null or fractional id, no method),
// invalid_params for params that are not an object.
IncomingMessage parse_message(std::string_view line);

// The lines to send (without the trailing newline). result_json and params_json are JSON texts.
std::string result_line(std::string_view id_json, std::string_view result_json);
std::string error_line(std::string_view id_json, RpcErrorCode code, std::string_view message,
                       const std::optional<std::string>& data_json = std::nullopt);
std::string notification_line(std::string_view method, std::string_view params_json);

// `value` as compact JSON text.
std::string to_json(const rapidjson::Value& value);

// A member of an object, or nullptr when `object` is not an object or lacks it (lib/json).
using json::find_member;

}  // namespace kg::mcp
