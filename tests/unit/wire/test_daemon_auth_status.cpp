// The daemon API's AuthStatus (GET /v1/auth, docs/daemon-api.md): what the daemon writes comes
// back equal through the CLI's and the MCP tool's reading, empty members are left out, and an
// answer out of shape is refused naming the member.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/auth_status.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

AuthStatus decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_auth_status(read.document);
}

}  // namespace

TEST_CASE("an AuthStatus survives encode and decode unchanged") {
  AuthStatus sealed{"creds-adc", true, "sealed", "authorized_user", "dev@example.com", "my-proj",
                    "quota-proj", "2026-12-05T01:00:00Z", "gcloud's well-known file", "", "",
                    "a per-call placeholder; the egress proxy puts the real token in"};
  CHECK(decode_text(encode_auth_status(sealed)) == sealed);
  CHECK(sealed.usable());

  AuthStatus opted_in = sealed;
  opted_in.mode = "access-token";
  opted_in.sealed.clear();
  opted_in.program_holds = "programs hold the real access token (about an hour)";
  CHECK(decode_text(encode_auth_status(opted_in)) == opted_in);
  CHECK(encode_auth_status(opted_in).ends_with(
      R"x(,"program_holds":"programs hold the real access token (about an hour)"})x"));

  AuthStatus team = sealed;
  team.signed_in_users_mode = "sealed";
  CHECK(decode_text(encode_auth_status(team)) == team);
  CHECK(encode_auth_status(team).ends_with(R"(,"signed_in_users_mode":"sealed"})"));

  AuthStatus none;
  none.plugin = "none";
  none.mode = "none";
  none.problem = "no credentials plugin";
  none.login_hint = "set [credentials] plugin";
  CHECK(decode_text(encode_auth_status(none)) == none);
  CHECK_FALSE(none.usable());
  CHECK(encode_auth_status(none) ==
        R"({"plugin":"none","plugin_loaded":false,"mode":"none","problem":"no credentials plugin",)"
        R"("login_hint":"set [credentials] plugin"})");
}

TEST_CASE("an AuthStatus out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_text("[]"), "the daemon's auth status is not a JSON object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"mode": 3})"),
                       "the daemon's auth status has \"mode\" that is not a string",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"signed_in_users_mode": true})"),
                       "the daemon's auth status has \"signed_in_users_mode\" that is not a string",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"plugin_loaded": "yes"})"),
                       "the daemon's auth status has \"plugin_loaded\" that is not true or false",
                       kg::wire::MalformedMessage);
}
