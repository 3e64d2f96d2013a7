// A daemon session as the daemon API answers it (docs/daemon-api.md, "Session": POST, GET and
// DELETE /v1/sessions/{id}), and the listing of them (GET /v1/sessions). Written by the daemon's
// API (daemon/api/response_json.cpp), read by `kode-gopher sessions`, by `kode-gopher exec --out`
// and by the MCP server's session link, which keep the id of the session they opened.
// Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kg::wire::daemon_api {

// Text members marked "left out when empty" are not written then; the others always are.
struct Session {
  std::string id;
  std::string client;  // "cli", "mcp", "mcp-http", …
  std::string provider;
  std::string sandbox_id;  // left out when empty (no sandbox attached yet)
  std::string runtime;
  std::string state;      // open | closed | interrupted
  std::string opened_at;  // RFC 3339 UTC
  std::string closed_at;  // left out when empty
  std::string close_reason;  // left out when empty
  std::int64_t calls = 0;
  std::int64_t api_calls = 0;          // Google API requests its calls made (docs/api-policy.md)
  std::int64_t api_calls_refused = 0;  // of those, refused by the API policy
  std::string identity;  // who its newest credentialed call ran as; left out when empty
  // Team mode: the signed-in user it belongs to; both left out when owner is empty.
  std::string owner;
  std::string owner_email;
  bool operator==(const Session&) const = default;
};

struct SessionsListing {
  std::vector<Session> sessions;
  bool operator==(const SessionsListing&) const = default;
};

// Bytes that are not UTF-8 (a close reason quoting a sandbox) become U+FFFD.
std::string encode_session(const Session& session);
std::string encode_sessions_listing(const SessionsListing& listing);

// Read answers parsed within json::kDaemonAnswerLimits; absent members keep the defaults above.
// Throw MalformedMessage naming a member out of shape; a session without an id is one, and so is
// a listing without its "sessions" array.
Session decode_session(const rapidjson::Value& value);
SessionsListing decode_sessions_listing(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
