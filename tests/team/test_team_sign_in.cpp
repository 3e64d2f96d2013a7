// Team mode end to end with sign-in: the daemon serving /mcp with [http] auth = oauth in front of
// a real OpenID Connect provider on loopback (oauth2-mock-server, tests/team/oidc/), the official
// TypeScript SDK client signing in browser-less (DCR, PKCE, the redirects followed with fetch),
// two users at once, each program running as its own user (with sealed user tokens, the
// default: a placeholder from the metadata emulator), and the tokens that must not work.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "json_text_probe.hpp"
#include "mock_oidc_provider.hpp"
#include "node_clients.hpp"
#include "team_daemon.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace {

// Who the program runs as, from inside the sandbox: the metadata emulator's email, and the
// access token Google's own library gets there — with sealed user tokens (the default), its
// call's placeholder; team-sealed (test_team_sealed.cpp) shows the real one at a peer.
const std::string kWhoAmI = R"go(package snippet

import (
	"context"

	"cloud.google.com/go/compute/metadata"
	"golang.org/x/oauth2/google"
)

func run(ctx context.Context) (any, error) {
	email, err := metadata.EmailWithContext(ctx, "default")
	if err != nil {
		return nil, err
	}
	creds, err := google.FindDefaultCredentials(ctx, "https://www.googleapis.com/auth/cloud-platform")
	if err != nil {
		return nil, err
	}
	token, err := creds.TokenSource.Token()
	if err != nil {
		return nil, err
	}
	return map[string]any{"email": email, "token": token.AccessToken}, nil
}
)go";

// oauth_keys: more [oauth] lines.
std::string oauth_config(const MockOidcProvider& provider, const std::string& oauth_keys = "") {
  return "auth = oauth\n"
         "[oauth]\n"
         "issuer = " + provider.issuer() + "\n"
         "client_id = kode-gopher-team-test\n" + oauth_keys +
         "allowed_users = alice@example.com bob@example.com\n"
         "[team]\n"
         "run_as = user\n";
}

rapidjson::Document sign_in_and_run(const TeamDaemon& team, const std::string& user) {
  return run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp", "--login-hint", user,
                                                 "--code", kWhoAmI, "--keep-session"});
}

const rapidjson::Value& value_of(const rapidjson::Value& run) {
  return run["result"]["structuredContent"]["result"]["value"];
}

// Signs `user` in through the provider (the SDK client's browser-less flow) and returns the
// daemon's access token for them.
std::string signed_in_token(const TeamDaemon& team, const std::string& user) {
  const auto run = run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp",
                                                           "--login-hint", user});
  INFO(to_text(run));
  REQUIRE(run["ok"].GetBool());
  return text_at(run, "access_token");
}

// A token is base64url, so one in 64 starts with '-', which node's parseArgs takes for an option
// when it follows "--token" as its own argument: always joined with '='.
std::string token_arg(const std::string& token) { return "--token=" + token; }

ProbeHeaders bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

// An access token of the upstream provider itself (client_credentials at its token endpoint):
// a real, validly signed token that the daemon must still refuse, since it did not issue it.
// The refresh grant at the daemon's token endpoint, as a client sends it.
ProbeAnswer refresh_at(const HttpProbe& http, const std::string& refresh_token,
                       const std::string& client_id) {
  return http.request("POST", "/oauth/token",
                      "grant_type=refresh_token&refresh_token=" + refresh_token +
                          "&client_id=" + client_id,
                      {{"Content-Type", "application/x-www-form-urlencoded"}});
}

std::string provider_token(const MockOidcProvider& provider) {
  const std::string authority = provider.issuer().substr(std::string("http://").size());
  const auto colon = authority.rfind(':');
  const HttpProbe http(authority.substr(0, colon), std::stoi(authority.substr(colon + 1)));
  const ProbeAnswer answer = http.request(
      "POST", "/token", "grant_type=client_credentials&scope=openid",
      {{"Content-Type", "application/x-www-form-urlencoded"},
       {"Authorization", "Basic a29kZS1nb3BoZXItdGVhbS10ZXN0OnNlY3JldA=="}});
  INFO(answer.body);
  REQUIRE(answer.status == 200);
  kg::json::ReadJson document_read = kg::test::read_test_json(answer.body);
  rapidjson::Document& document = document_read.document;
  REQUIRE(document.HasMember("access_token"));
  return document["access_token"].GetString();
}

}  // namespace

TEST_CASE("two users sign in at once, each runs as themselves, and neither reaches the other") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));
  const HttpProbe http = team.probe();

  auto alice_run = std::async(std::launch::async, [&] { return sign_in_and_run(team, "alice@example.com"); });
  auto bob_run = std::async(std::launch::async, [&] { return sign_in_and_run(team, "bob@example.com"); });
  const rapidjson::Document alice = alice_run.get();
  const rapidjson::Document bob = bob_run.get();
  INFO(to_text(alice));
  INFO(to_text(bob));
  REQUIRE(alice["ok"].GetBool());
  REQUIRE(bob["ok"].GetBool());

  // Signed in through the daemon's authorization server, which names itself in iss (RFC 9207).
  CHECK(alice["authorization"]["required"].GetBool());
  CHECK(alice["authorization"]["state_matches"].GetBool());
  CHECK(text_at(alice["authorization"]["response"], "iss") == team.url);

  // Each program ran as its own user, and holds only its call's placeholder for that user's
  // Google token (sealed user tokens, the default), served by its sandbox's metadata emulator.
  CHECK_FALSE(alice["result"]["isError"].GetBool());
  CHECK(text_at(value_of(alice), "email") == "alice@example.com");
  CHECK(text_at(value_of(alice), "token").starts_with("kg-sealed."));
  CHECK(text_at(value_of(bob), "email") == "bob@example.com");
  CHECK(text_at(value_of(bob), "token").starts_with("kg-sealed."));
  CHECK(text_at(value_of(alice), "token") != text_at(value_of(bob), "token"));

  // The daemon recorded who ran what.
  const auto sessions = team.daemon->json(team.daemon->get("/v1/sessions"));
  int owned_by_alice = 0, owned_by_bob = 0;
  for (const auto& session : sessions["sessions"].GetArray()) {
    owned_by_alice += text_at(session, "owner_email") == "alice@example.com";
    owned_by_bob += text_at(session, "owner_email") == "bob@example.com";
    if (text_at(session, "owner_email") == "alice@example.com") {
      CHECK(text_at(session, "identity") == "alice@example.com");
    }
  }
  CHECK(owned_by_alice == 1);
  CHECK(owned_by_bob == 1);

  // Bob's token does not reach Alice's session: not to call in it, not to end it.
  const std::string alice_session = text_at(alice, "session_id");
  const std::string alice_token = text_at(alice, "access_token");
  const std::string bob_token = text_at(bob, "access_token");
  REQUIRE_FALSE(alice_session.empty());
  ProbeHeaders as_bob = bearer(bob_token);
  as_bob.emplace_back("Mcp-Session-Id", alice_session);
  CHECK(http.post_mcp(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})", as_bob).status == 404);
  CHECK(http.request("DELETE", "/mcp", "", as_bob).status == 404);
  ProbeHeaders as_alice = bearer(alice_token);
  as_alice.emplace_back("Mcp-Session-Id", alice_session);
  CHECK(http.post_mcp(R"({"jsonrpc":"2.0","id":6,"method":"tools/list"})", as_alice).status == 200);
  CHECK(http.request("DELETE", "/mcp", "", as_alice).status == 200);

  SUBCASE("the v2 client (2026-07-28, stateless) with Alice's token runs as Alice") {
    const auto modern = run_team_client("stateless_call.mjs", {"--url", team.url + "/mcp",
                                                               token_arg(alice_token),
                                                               "--code", kWhoAmI});
    INFO(to_text(modern));
    CHECK(modern["ok"].GetBool());
    CHECK(text_at(modern, "era") == "modern");
    CHECK(text_at(value_of(modern), "email") == "alice@example.com");
  }
  SUBCASE("no token, a forged or altered one, and the provider's own token are 401") {
    const std::string initialize = initialize_request();
    for (const ProbeHeaders& headers :
         {ProbeHeaders{}, bearer("forged-0123456789abcdef0123456789abcdef"),
          bearer(alice_token + "x"), bearer(provider_token(provider))}) {
      const ProbeAnswer answer = http.post_mcp(initialize, headers);
      CHECK(answer.status == 401);
      const std::string challenge = answer.header("www-authenticate");
      CHECK(challenge.find("resource_metadata=\"" + team.url +
                           "/.well-known/oauth-protected-resource/mcp\"") != std::string::npos);
    }
  }
  SUBCASE("a refresh token used twice revokes its whole family (a stolen copy is dead)") {
    const std::string refresh = text_at(alice, "refresh_token");
    const std::string client_id = text_at(alice, "client_id");
    REQUIRE_FALSE(refresh.empty());
    const ProbeAnswer first = refresh_at(http, refresh, client_id);
    CHECK(first.status == 200);
    const ProbeAnswer replay = refresh_at(http, refresh, client_id);
    CHECK(replay.status == 400);
    CHECK(replay.body.find("invalid_grant") != std::string::npos);
    kg::json::ReadJson rotated_read = kg::test::read_test_json(first.body);
    rapidjson::Document& rotated = rotated_read.document;
    REQUIRE(rotated.HasMember("access_token"));
    const ProbeAnswer after = http.post_mcp(initialize_request(),
                                            bearer(rotated["access_token"].GetString()));
    CHECK(after.status == 401);
  }
}

// Issue 28, point 6: a task outlives the connection that started it, is the user's (not the
// session's), and is as unknown to another user as a made-up id.
TEST_CASE("a task survives its client's reconnect, and another user can neither see nor cancel it") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));
  const std::string alice = signed_in_token(team, "alice@example.com");
  const std::string bob = signed_in_token(team, "bob@example.com");
  const auto tasks = [&](const std::string& token, std::vector<std::string> args) {
    args.insert(args.begin(), {"--url", team.url + "/mcp", token_arg(token)});
    return run_team_client("task_across_sessions.mjs", args);
  };
  const std::string sleeper =
      "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n"
      "\ttime.Sleep(2 * time.Second)\n\tfmt.Println(\"done after a reconnect\")\n}\n";

  const auto started = tasks(alice, {"--action", "start", "--code", sleeper});
  INFO(to_text(started));
  REQUIRE(started["ok"].GetBool());
  CHECK(started["capabilities"].HasMember("tasks"));
  const std::string task_id = text_at(started["task"], "taskId");
  REQUIRE(task_id.size() == 32);
  CHECK(text_at(started["task"], "status") == "working");
  CHECK(text_at(started, "status_after_create") == "working");

  // Bob, signed in, names Alice's task: not found, whatever he asks, and not in his list.
  const auto probed = tasks(bob, {"--action", "probe", "--task-id", task_id});
  INFO(to_text(probed));
  REQUIRE(probed["ok"].GetBool());
  for (const char* what : {"get", "result", "cancel"}) {
    CAPTURE(what);
    REQUIRE(probed[what].HasMember("error"));
    CHECK(probed[what]["error"]["code"].GetInt() == -32602);
    CHECK(text_at(probed[what]["error"], "message").find("Task not found") != std::string::npos);
  }
  CHECK(probed["list"].Size() == 0);

  // Alice comes back on a new connection and a new session: the task ran on and its result waits.
  const auto fetched = tasks(alice, {"--action", "fetch", "--task-id", task_id});
  INFO(to_text(fetched));
  REQUIRE(fetched["ok"].GetBool());
  CHECK(text_at(fetched, "session_id") != text_at(started, "session_id"));
  CHECK(text_at(fetched["after"], "status") == "completed");
  CHECK_FALSE(fetched["result"]["isError"].GetBool());
  CHECK(text_at(fetched["result"]["structuredContent"], "stdout") == "done after a reconnect\n");
  CHECK(text_at(fetched["result"]["_meta"]["io.modelcontextprotocol/related-task"], "taskId") ==
        task_id);
  REQUIRE(fetched["list"].Size() == 1);
  CHECK(std::string(fetched["list"][0].GetString()) == task_id);
}

TEST_CASE("an expired access token gets 401 invalid_token; a refresh brings one that works") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider, "access_token_ttl_s = 60\n"));  // the shortest allowed
  const HttpProbe http = team.probe();
  const auto run = run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp",
                                                           "--login-hint", "alice@example.com"});
  INFO(to_text(run));
  REQUIRE(run["ok"].GetBool());
  const std::string token = text_at(run, "access_token");
  CHECK(http.post_mcp(initialize_request(), bearer(token)).status == 200);

  // Issued before the client returned, the token has expired 62 s later (whole seconds).
  std::this_thread::sleep_for(std::chrono::seconds(62));
  const ProbeAnswer expired = http.post_mcp(initialize_request(), bearer(token));
  CHECK(expired.status == 401);
  const std::string challenge = expired.header("www-authenticate");
  CHECK(challenge.find("error=\"invalid_token\"") != std::string::npos);
  CHECK(challenge.find("the token expired") != std::string::npos);

  const ProbeAnswer refreshed = refresh_at(http, text_at(run, "refresh_token"), text_at(run, "client_id"));
  INFO(refreshed.body);
  REQUIRE(refreshed.status == 200);
  kg::json::ReadJson fresh_read = kg::test::read_test_json(refreshed.body);
  rapidjson::Document& fresh = fresh_read.document;
  REQUIRE(fresh.HasMember("access_token"));
  CHECK(http.post_mcp(initialize_request(), bearer(fresh["access_token"].GetString())).status == 200);
}

TEST_CASE("a user outside the allowlist gets a 403 page and no token") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));
  const auto run = run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp",
                                                           "--login-hint", "mallory@elsewhere.example"});
  INFO(to_text(run));
  CHECK_FALSE(run["ok"].GetBool());
  CHECK(run["authorization"]["final"]["status"].GetInt() == 403);
  CHECK(text_at(run, "access_token").empty());
  CHECK(team.daemon->json(team.daemon->get("/v1/sessions"))["sessions"].Size() == 0);
}

// Issue 23, item 1: the registration endpoint needs no sign-in, so its body is the first JSON an
// attacker can send. 300 KB of '[' once overflowed the stack of a recursive parse and took every
// user's sessions down; lib/json's reader refuses it (and deeper, and bytes that are not UTF-8)
// with a 400, and the next user still signs in.
TEST_CASE("hostile registration bodies get 400 invalid_client_metadata and sign-in keeps working") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));
  const HttpProbe http = team.probe();
  const ProbeHeaders json_type = {{"Content-Type", "application/json"}};
  const std::vector<std::pair<std::string, std::string>> bodies = {
      {"300 KB of [", std::string(300 * 1024, '[')},
      {"10^6 nested arrays", std::string(1'000'000, '[') + std::string(1'000'000, ']')},
      {"a redirect URI that is not UTF-8",
       "{\"client_name\":\"x\",\"redirect_uris\":[\"http://127.0.0.1:1/\xC3\x28\"]}"},
  };
  for (const auto& [what, body] : bodies) {
    INFO(what);
    const ProbeAnswer answer = http.request("POST", "/oauth/register", body, json_type);
    INFO(answer.body.substr(0, 400));
    CHECK(answer.status == 400);
    CHECK(answer.body.find("invalid_client_metadata") != std::string::npos);
  }
  CHECK(team.daemon->get("/v1/health").status == 200);
  const auto run = sign_in_and_run(team, "alice@example.com");
  INFO(to_text(run));
  CHECK(run["ok"].GetBool());
}

TEST_CASE("files a program left under /app/out come back to their user, and to no one else") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_config(provider));
  const std::string alice = signed_in_token(team, "alice@example.com");
  const std::string bob = signed_in_token(team, "bob@example.com");
  const auto files = [&](const std::string& token, std::vector<std::string> args) {
    args.insert(args.begin(), {"--url", team.url + "/mcp", token_arg(token)});
    return run_team_client("out_files_across_users.mjs", args);
  };

  // Alice: one resource link per file, each read back byte for byte on her connection.
  const auto written = files(alice, {"--action", "write"});
  INFO(to_text(written));
  REQUIRE(written["ok"].GetBool());
  CHECK(written["capabilities"].HasMember("resources"));
  CHECK_FALSE(written["is_error"].GetBool());
  REQUIRE(written["links"].Size() == 2);
  REQUIRE(written["reads"].Size() == 2);
  std::vector<std::string> uris;
  for (rapidjson::SizeType i = 0; i < written["links"].Size(); ++i) {
    const auto& link = written["links"][i];
    const auto& read = written["reads"][i];
    const std::string name = text_at(link, "name");
    CAPTURE(name);
    REQUIRE_FALSE(read.HasMember("error"));
    CHECK(text_at(read, "sha256") == text_at(written["expected"], name.c_str()));
    CHECK(text_at(read, "kind") == (name == "report.csv" ? "text" : "blob"));
    uris.push_back(text_at(link, "uri"));
  }
  CHECK(written["listed"].Size() == 2);

  // Bob, signed in, names Alice's uris: the answer a uri that never existed gets, and his own
  // list is empty.
  std::vector<std::string> args = {"--action", "read"};
  for (const auto& uri : uris) {
    args.push_back("--uri");
    args.push_back(uri);
  }
  const auto probed = files(bob, args);
  INFO(to_text(probed));
  REQUIRE(probed["ok"].GetBool());
  REQUIRE(probed["reads"].Size() == 2);
  for (rapidjson::SizeType i = 0; i < probed["reads"].Size(); ++i) {
    const auto& read = probed["reads"][i];
    REQUIRE(read.HasMember("error"));
    CHECK(read["error"]["code"].GetInt() == -32002);
    CHECK_FALSE(read.HasMember("sha256"));
  }
  CHECK(probed["listed"].Size() == 0);
}

}  // namespace kg::test
