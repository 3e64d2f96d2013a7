// The body of POST /v1/sessions (docs/daemon-api.md): {"client"?, "runtime"?}, both optional.
// Written by `kode-gopher exec --out` and the MCP server's session link, read by the daemon's
// API, which opens the session. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace kg::wire::daemon_api {

struct OpenSessionRequest {
  std::string client;   // "cli", "mcp", …; empty: left out (the daemon records "")
  std::string runtime;  // empty: left out (the session takes the daemon's runtime.default)
  bool operator==(const OpenSessionRequest&) const = default;
};

std::string encode_open_session_request(const OpenSessionRequest& request);

// Reads a body parsed within json::kRequestLimits; absent or null members stay empty. Throws
// MalformedMessage "\"client\" must be a string" (or "runtime"), which the daemon answers as
// bad_request.
OpenSessionRequest decode_open_session_request(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
