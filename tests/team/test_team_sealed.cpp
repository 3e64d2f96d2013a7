// Team mode with [team] run_as = user and sealed user tokens (the default), end to end: a real
// daemon signing users in through the team suite's OpenID provider (oauth2-mock-server, whose
// access tokens are JWTs naming the user), the official TypeScript SDK client, real local
// sandboxes on the default network (auto: the allowlist, since run_as = user carries the users'
// tokens; no credential plugin at all), and a TLS peer of this test standing in for
// storage.googleapis.com in the test's own network namespaces (tests/hostile/egress_world.hpp:
// its /etc/hosts names it, its certificate names it, and the daemon trusts that certificate
// through [sandbox] egress_upstream_ca_file, the one test-specific step).
//
// Proven: two users' programs list a bucket with cloud.google.com/go/storage at the same time;
// the peer sees each user's own upstream token (the provider's JWT, whose subject is that user)
// and never a placeholder; each program's metadata emulator, token source and environment hold
// only its call's placeholder and nothing of the real token reaches the MCP answer; each call's
// `api_calls` lists the storage request; gcp_auth_status says mode sealed. The daemon's own
// auth status (GET /v1/auth, `kode-gopher auth status`, gcp_auth_status through `kode-gopher
// serve` on the Unix socket) says that signed-in users' calls run as themselves, in which mode.
// With the explicit opt-in user_token_mode = access-token the program holds the very token the
// peer sees.
#include <doctest/doctest.h>

#include <future>
#include <set>
#include <string>
#include <vector>

#include "base64url.hpp"
#include "egress_world.hpp"
#include "json_text_probe.hpp"
#include "mock_oidc_provider.hpp"
#include "node_clients.hpp"
#include "serve_process.hpp"
#include "team_daemon.hpp"
#include "test_network.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace {

using egress::world;
using sandbox::testing::TestNetwork;

// storage.googleapis.com's JSON API as far as listing buckets goes, on the world's "internet"
// listener with the world's certificate (a RecordingTlsPeer, which keeps each Authorization).
PeerAnswer list_buckets(const PeerRequest& request) {
  if (!request.head.starts_with("GET /storage/v1/b?")) {
    return {404, "Not Found", "application/json",
            R"({"error":{"code":404,"message":"not served by this test"}})"};
  }
  return {200, "OK", "application/json",
          std::string(R"({"kind":"storage#buckets","items":[{"kind":"storage#bucket","name":")") +
              egress::kBucket + R"("}]})"};
}

// The program: who it runs as (the metadata emulator's email), the metadata emulator's token
// answer itself, the token Google's own library gets there, its environment, and the buckets
// cloud.google.com/go/storage lists at "storage.googleapis.com" on the peer's port (over
// HTTP/1.1, which the peer speaks: a TLS config of its own keeps net/http off HTTP/2).
std::string storage_program() {
  return R"go(package snippet

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"strings"

	"cloud.google.com/go/compute/metadata"
	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

func run(ctx context.Context) (any, error) {
	email, err := metadata.EmailWithContext(ctx, "default")
	if err != nil {
		return nil, err
	}
	answer, err := metadata.GetWithContext(ctx, "instance/service-accounts/default/token")
	if err != nil {
		return nil, err
	}
	tokens, err := google.DefaultTokenSource(ctx, storage.ScopeReadOnly)
	if err != nil {
		return nil, err
	}
	token, err := tokens.Token()
	if err != nil {
		return nil, err
	}
	h1 := &http.Client{Transport: &oauth2.Transport{Source: tokens,
		Base: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{}}}}
	client, err := storage.NewClient(ctx, option.WithHTTPClient(h1),
		option.WithEndpoint("https://storage.googleapis.com:)go" +
         std::to_string(world().internet_port) + R"go(/storage/v1/"))
	if err != nil {
		return nil, err
	}
	defer client.Close()
	var buckets []string
	it := client.Buckets(ctx, "test-project")
	for {
		bucket, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, err
		}
		buckets = append(buckets, bucket.Name)
	}
	return map[string]any{"email": email, "metadata_token": answer, "token": token.AccessToken,
		"buckets": buckets, "environment": strings.Join(os.Environ(), "\n")}, nil
}
)go";
}

// user_token_mode: "" leaves it out (sealed, the default).
std::unique_ptr<TeamDaemon> team_daemon(const MockOidcProvider& provider,
                                        const std::string& user_token_mode) {
  const std::string team_keys =
      "auth = oauth\n"
      "[oauth]\n"
      "issuer = " + provider.issuer() + "\n"
      "client_id = kode-gopher-team-test\n"
      "allowed_users = alice@example.com bob@example.com\n"
      "[team]\n"
      "run_as = user\n" +
      (user_token_mode.empty() ? std::string() : "user_token_mode = " + user_token_mode + "\n");
  // No credential plugin: the users' own tokens are all there is, and [sandbox] network = auto
  // (not set) is the allowlist for them. The peer's port joins 443 on the allowlist.
  const std::string sections = "[credentials]\nplugin = none\n";
  const std::string sandbox_keys =
      "allowed_ports = 443, " + std::to_string(world().internet_port) + "\n"
      "egress_upstream_ca_file = " + (TestNetwork::get().scratch() / "cert.pem").string() + "\n";
  return std::make_unique<TeamDaemon>(team_keys, sections, false, true, sandbox_keys);
}

std::string signed_in_token(const TeamDaemon& team, const std::string& user) {
  const auto run = run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp",
                                                           "--login-hint", user});
  INFO(to_text(run));
  REQUIRE(run["ok"].GetBool());
  return text_at(run, "access_token");
}

rapidjson::Document run_program(const TeamDaemon& team, const std::string& token) {
  return run_team_client("sign_in_and_run.mjs", {"--url", team.url + "/mcp", "--token", token,
                                                 "--code", storage_program(), "--keep-session"});
}

// The subject of a provider token (a JWT) from "Bearer <jwt>"; "" when it is none.
std::string subject_of(const std::string& authorization) {
  if (!authorization.starts_with("Bearer ")) return {};
  const std::string jwt = authorization.substr(7);
  const auto first = jwt.find('.');
  const auto second = jwt.find('.', first + 1);
  if (first == std::string::npos || second == std::string::npos) return {};
  const auto payload = codec::base64url_decode(jwt.substr(first + 1, second - first - 1));
  if (!payload) return {};
  const rapidjson::Document claims = test_json(*payload);
  return claims.IsObject() ? text_at(claims, "sub") : "";
}

// The real token the peer saw for `user` ("" when none).
std::string token_seen_for(const RecordingTlsPeer& peer, const std::string& user) {
  for (const auto& authorization : peer.authorizations()) {
    if (subject_of(authorization) == "sub-" + user) return authorization.substr(7);
  }
  return {};
}

const rapidjson::Value& structured(const rapidjson::Value& run) {
  return run["result"]["structuredContent"];
}

// The daemon's answer on its Unix socket, to the CLI and to `kode-gopher serve`'s
// gcp_auth_status: with no credential plugin, calls without a signed-in user get none, and each
// signed-in user's calls run as that user, in `mode` (docs/team-mode.md).
void check_daemon_auth_status(const TeamDaemon& team, const std::string& mode) {
  CAPTURE(mode);
  const auto auth = team.daemon->json(team.daemon->get("/v1/auth"));
  CHECK(text_at(auth, "mode") == "none");
  CHECK(text_at(auth, "signed_in_users_mode") == mode);

  std::string out, err;
  CHECK(run_cli({"--config", team.daemon->config_path(), "auth", "status"}, out, err) == 1);
  CHECK(out.find("signed-in users: each user's calls run as that user's own Google identity, "
                 "mode " + mode + " ([team] run_as = user") != std::string::npos);

  ServeProcess serve(team.daemon->config_path());
  serve.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"team-sealed","version":"1"}}})");
  serve.read_message();
  serve.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  serve.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gcp_auth_status","arguments":{}}})");
  const rapidjson::Document answer = serve.read_message();
  INFO(to_text(answer));
  REQUIRE(answer.HasMember("result"));
  CHECK(text_at(answer["result"]["structuredContent"], "signed_in_users_mode") == mode);
  CHECK(text_at(answer["result"]["content"][0], "text")
            .find("Team mode ([team] run_as = user): each signed-in user's calls run as that "
                  "user's own Google identity, in mode " + mode) != std::string::npos);
  CHECK(serve.close_and_wait() == 0);
}

}  // namespace

TEST_CASE("team-sealed: each signed-in user's program lists a bucket with the user's own token, which only the egress proxy holds") {
  MockOidcProvider provider;
  RecordingTlsPeer peer(egress::internet_listener(), list_buckets);
  const auto team = team_daemon(provider, "");
  const std::string alice_token = signed_in_token(*team, "alice@example.com");
  const std::string bob_token = signed_in_token(*team, "bob@example.com");

  auto alice_run = std::async(std::launch::async, [&] { return run_program(*team, alice_token); });
  auto bob_run = std::async(std::launch::async, [&] { return run_program(*team, bob_token); });
  const rapidjson::Document alice = alice_run.get();
  const rapidjson::Document bob = bob_run.get();

  std::set<std::string> placeholders;
  for (const auto& [user, run] : {std::pair<std::string, const rapidjson::Document*>{
                                      "alice@example.com", &alice},
                                  {"bob@example.com", &bob}}) {
    CAPTURE(user);
    const std::string answer = to_text(*run);
    INFO(answer);
    REQUIRE((*run)["ok"].GetBool());
    REQUIRE_FALSE((*run)["result"]["isError"].GetBool());
    const auto& value = structured(*run)["result"]["value"];
    CHECK(text_at(value, "email") == user);
    REQUIRE(value["buckets"].IsArray());
    REQUIRE(value["buckets"].Size() == 1);
    CHECK(std::string(value["buckets"][0].GetString()) == egress::kBucket);

    // The program holds its call's placeholder: from the metadata emulator and from Google's
    // own token source alike.
    const std::string placeholder = text_at(value, "token");
    CHECK(placeholder.starts_with("kg-sealed."));
    const rapidjson::Document metadata = test_json(text_at(value, "metadata_token"));
    REQUIRE(metadata.IsObject());
    CHECK(text_at(metadata, "access_token") == placeholder);
    placeholders.insert(placeholder);

    // The peer saw this user's real upstream token, and the program's answer (its environment,
    // its metadata answers, everything the MCP client got) holds none of it.
    const std::string real = token_seen_for(peer, user);
    REQUIRE_FALSE(real.empty());
    CHECK(answer.find(real) == std::string::npos);
    CHECK(text_at(value, "environment").find("kg-sealed.") == std::string::npos);

    // The storage request is in the call's audit, forwarded with the peer's answer.
    const auto& api_calls = structured(*run)["api_calls"];
    REQUIRE(api_calls.IsObject());
    CHECK(api_calls["count"].GetInt() >= 1);
    CHECK(api_calls["refused"].GetInt() == 0);
    bool listed = false;
    for (const auto& call : api_calls["calls"].GetArray()) {
      listed |= text_at(call, "service") == "storage" &&
                text_at(call, "method") == "storage.buckets.list" &&
                call["http_status"].GetInt() == 200 && call["read"].GetBool();
    }
    CHECK(listed);
  }
  CHECK(placeholders.size() == 2);  // one per call

  // Two users, two real tokens, and never a placeholder at the peer.
  CHECK(token_seen_for(peer, "alice@example.com") != token_seen_for(peer, "bob@example.com"));
  for (const auto& authorization : peer.authorizations()) {
    CAPTURE(authorization);
    CHECK(authorization.find("kg-sealed.") == std::string::npos);
    CHECK_FALSE(subject_of(authorization).empty());
  }

  // gcp_auth_status tells Alice what her programs hold.
  const auto status = run_team_client("sign_in_and_run.mjs",
                                      {"--url", team->url + "/mcp", "--token", alice_token,
                                       "--tool", "gcp_auth_status", "--arguments", "{}"});
  INFO(to_text(status));
  REQUIRE(status["ok"].GetBool());
  const auto& auth = structured(status);
  CHECK(text_at(auth, "mode") == "sealed");
  CHECK(text_at(auth, "email") == "alice@example.com");
  CHECK(text_at(auth, "sealed").find("placeholder") != std::string::npos);
  CHECK_FALSE(auth.HasMember("program_holds"));
  CHECK_FALSE(auth.HasMember("signed_in_users_mode"));  // Alice's answer is about her alone
  check_daemon_auth_status(*team, "sealed");

  // The daemon recorded whose identity each program's session ran as.
  const auto sessions = team->daemon->json(team->daemon->get("/v1/sessions"));
  int owned = 0;
  for (const auto& session : sessions["sessions"].GetArray()) {
    if (text_at(session, "owner_email").empty()) continue;
    CHECK(text_at(session, "identity") == text_at(session, "owner_email"));
    ++owned;
  }
  CHECK(owned >= 2);
}

TEST_CASE("team-sealed: user_token_mode = access-token, the explicit opt-in, hands the program the user's token itself") {
  MockOidcProvider provider;
  RecordingTlsPeer peer(egress::internet_listener(), list_buckets);
  const auto team = team_daemon(provider, "access-token");
  const auto run = run_program(*team, signed_in_token(*team, "alice@example.com"));
  INFO(to_text(run));
  REQUIRE(run["ok"].GetBool());
  REQUIRE_FALSE(run["result"]["isError"].GetBool());
  const auto& value = structured(run)["result"]["value"];
  REQUIRE(value["buckets"].IsArray());
  CHECK(value["buckets"].Size() == 1);
  const std::string real = token_seen_for(peer, "alice@example.com");
  REQUIRE_FALSE(real.empty());
  CHECK(text_at(value, "token") == real);

  const auto status = run_team_client("sign_in_and_run.mjs",
                                      {"--url", team->url + "/mcp", "--token",
                                       signed_in_token(*team, "alice@example.com"), "--tool",
                                       "gcp_auth_status", "--arguments", "{}"});
  INFO(to_text(status));
  REQUIRE(status["ok"].GetBool());
  CHECK(text_at(structured(status), "mode") == "access-token");
  CHECK(text_at(structured(status), "program_holds").starts_with("programs hold the real access token"));
  check_daemon_auth_status(*team, "access-token");
}

}  // namespace kg::test
