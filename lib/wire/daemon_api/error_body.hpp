// The body of every non-2xx answer of the daemon API, and the last line of a streamed execute
// that failed (docs/daemon-api.md, "Errors" and "Progress"): {"error": {"code", "message"}}.
// Written by the daemon's API server (daemon/api/response_json.cpp, error_json), read by the
// CLI and the MCP server's session link (cli/daemon_client.cpp, cli/daemon_stream.cpp), which
// turn it into a DaemonApiError. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace kg::wire::daemon_api {

struct ErrorBody {
  std::string code;  // bad_request, not_found, cancelled, … (the table in docs/daemon-api.md)
  std::string message;
  bool operator==(const ErrorBody&) const = default;
};

// Both members are always written; bytes that are not UTF-8 become U+FFFD.
std::string encode_error_body(const ErrorBody& error);

// Reads a body parsed within json::kDaemonAnswerLimits. Throws MalformedMessage when it is not
// an object with an "error" object holding the strings "code" and "message" (a proxy's HTML
// page, another server's JSON), so the caller can say what it got instead.
ErrorBody decode_error_body(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
