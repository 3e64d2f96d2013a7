// creds-workload in mode sealed (its default) end to end: a real daemon whose identity is a GCE
// metadata server (LoopbackGoogle's, through GCE_METADATA_HOST), its sandbox on the test's
// allowlist, and a stand-in for storage.googleapis.com on the "internet" listener that records
// the Authorization it receives (recording_tls_peer.hpp). The program reads its token through
// the sandbox's metadata emulator — the placeholder — and lists buckets with it through the
// egress proxy; the peer receives the metadata server's real token. (The integration suite runs
// creds-workload only with mode = access-token: it has no network for the proxy to reach.)
#include <doctest/doctest.h>

#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "loopback_google.hpp"
#include "recording_tls_peer.hpp"
#include "sealed_runs.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

// storage.googleapis.com on the internet listener's port (the test allowlist admits it).
std::string workload_program(int port) {
  return R"(package snippet

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

func run(ctx context.Context) (any, error) {
	tokens, err := google.DefaultTokenSource(ctx, "https://www.googleapis.com/auth/cloud-platform")
	if err != nil {
		return nil, err
	}
	token, err := tokens.Token()
	if err != nil {
		return nil, err
	}
	// HTTP/1.1 (a TLS config of its own keeps net/http off HTTP/2): the stand-in speaks only that.
	client := &http.Client{Transport: &oauth2.Transport{Source: tokens,
		Base: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{}}}}
	response, err := client.Get("https://storage.googleapis.com:)" +
         std::to_string(port) + R"(/storage/v1/b?project=test-project")
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	return map[string]any{"token": token.AccessToken, "status": response.StatusCode,
		"body": string(body)}, nil
}
)";
}

}  // namespace

TEST_CASE("hostile egress workload: creds-workload sealed, the program holds the placeholder and the peer gets the real token") {
  LoopbackGoogle google;
  RecordingTlsPeer peer(internet_listener(), [](const PeerRequest&) {
    return PeerAnswer{200, "OK", "application/json", R"({"kind":"storage#buckets","items":[{"name":"kg-bucket"}]})"};
  });
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {required_env("KG_CREDS_WORKLOAD_PLUGIN_DIR")};
  options.extra_sandbox_keys =
      allowlist_keys() + "egress_upstream_ca_file = " +
      (sandbox::testing::TestNetwork::get().scratch() / "cert.pem").string() + "\n";
  options.extra_sections = "[credentials]\nplugin = creds-workload\n";  // no mode: sealed
  DaemonFixture daemon(options);
  start_with_environment(daemon, {{"GCE_METADATA_HOST", google.metadata_host()},
                                  {"GOOGLE_APPLICATION_CREDENTIALS", std::nullopt},
                                  {"CLOUDSDK_CONFIG", std::nullopt}});
  std::string out, err;
  REQUIRE(run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 0);
  INFO(out);
  CHECK(contains(out, "(creds-workload)"));
  CHECK(contains(out, "sealed"));

  auto run = exec_program(daemon, "workload.go", workload_program(world().internet_port));
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  const auto& value = run.result()["result"]["value"];
  const std::string placeholder = member_text(value, "token");
  CHECK(placeholder.starts_with("kg-sealed."));
  CHECK(google.subject_of(placeholder).empty());
  CHECK(value["status"].GetInt() == 200);
  CHECK(contains(member_text(value, "body"), "kg-bucket"));

  const auto seen = peer.authorizations();
  REQUIRE(seen.size() == 1);
  REQUIRE(seen[0].starts_with("Bearer "));
  const std::string real_token = seen[0].substr(7);
  CHECK(real_token != placeholder);
  CHECK(google.subject_of(real_token) == google.metadata_email);  // the metadata server's token
  REQUIRE(run.result().HasMember("api_calls"));
  CHECK(api_call_lines(run.result()) == std::vector<std::string>{"storage.buckets.list"});
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
