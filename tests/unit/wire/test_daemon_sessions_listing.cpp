// The daemon API's Session and sessions listing (POST, GET, DELETE /v1/sessions[/{id}],
// docs/daemon-api.md): what the daemon writes comes back equal through the CLI's and the MCP
// session link's reading, in the bytes the contract fixes, and an answer out of shape is refused
// naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/sessions_listing.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

rapidjson::Document parsed(const std::string& text) {
  kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return std::move(read.document);
}

Session open_session() {
  Session s;
  s.id = "s-1";
  s.client = "cli";
  s.provider = "local";
  s.runtime = "compiled-go";
  s.state = "open";
  s.opened_at = "2026-01-02T03:04:05Z";
  return s;
}

Session closed_team_session() {
  Session s = open_session();
  s.id = "s-22";
  s.client = "mcp-http";
  s.sandbox_id = "sbx-9";
  s.state = "closed";
  s.closed_at = "2026-01-02T03:06:00Z";
  s.close_reason = "closed by client";
  s.calls = 12;
  s.api_calls = 40;
  s.api_calls_refused = 2;
  s.identity = "dev@example.com";
  s.owner = "https://accounts.google.com#42";
  s.owner_email = "dev@example.com";
  return s;
}

}  // namespace

TEST_CASE("a Session survives encode and decode unchanged, in the contract's bytes") {
  const Session open = open_session();
  CHECK(encode_session(open) ==
        R"({"id":"s-1","client":"cli","provider":"local","runtime":"compiled-go","state":"open",)"
        R"("opened_at":"2026-01-02T03:04:05Z","calls":0,"api_calls":0,"api_calls_refused":0})");
  CHECK(decode_session(parsed(encode_session(open))) == open);

  const Session closed = closed_team_session();
  CHECK(encode_session(closed) ==
        R"({"id":"s-22","client":"mcp-http","provider":"local","sandbox_id":"sbx-9",)"
        R"("runtime":"compiled-go","state":"closed","opened_at":"2026-01-02T03:04:05Z",)"
        R"("closed_at":"2026-01-02T03:06:00Z","close_reason":"closed by client","calls":12,)"
        R"("api_calls":40,"api_calls_refused":2,"identity":"dev@example.com",)"
        R"("owner":"https://accounts.google.com#42","owner_email":"dev@example.com"})");
  CHECK(decode_session(parsed(encode_session(closed))) == closed);
}

TEST_CASE("a session's bytes that are not UTF-8 are sent as U+FFFD") {
  Session s = open_session();
  s.close_reason = "the sandbox said \xFF";
  CHECK(decode_session(parsed(encode_session(s))).close_reason == "the sandbox said \xEF\xBF\xBD");
}

TEST_CASE("a sessions listing survives encode and decode unchanged") {
  const SessionsListing listing{{open_session(), closed_team_session()}};
  CHECK(decode_sessions_listing(parsed(encode_sessions_listing(listing))) == listing);
  const SessionsListing empty;
  CHECK(encode_sessions_listing(empty) == R"({"sessions":[]})");
  CHECK(decode_sessions_listing(parsed(encode_sessions_listing(empty))) == empty);
}

TEST_CASE("a Session out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_session(parsed("[]")), "the daemon's session is not a JSON object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_session(parsed(R"({"client": "cli"})")),
                       "the daemon's session has \"id\" that is not a session id",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_session(parsed(R"({"id": 7})")),
                       "the daemon's session has \"id\" that is not a string",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_session(parsed(R"({"id": "s-1", "calls": "3"})")),
                       "the daemon's session has \"calls\" that is not an integer",
                       kg::wire::MalformedMessage);
}

TEST_CASE("a sessions listing out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_sessions_listing(parsed(R"({"items": []})")),
                       "the daemon's sessions listing has no \"sessions\" array",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_sessions_listing(parsed(R"({"sessions": {}})")),
                       "the daemon's sessions listing has \"sessions\" that is not an array",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_sessions_listing(parsed(R"({"sessions": [{"id": "s-1"}, 3]})")),
                       "the daemon's sessions listing has \"sessions[1]\" that is not an object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(
      decode_sessions_listing(parsed(R"({"sessions": [{"id": "s-1", "api_calls_refused": 1.5}]})")),
      "the daemon's sessions listing has \"sessions[0].api_calls_refused\" that is not an integer",
      kg::wire::MalformedMessage);
}
