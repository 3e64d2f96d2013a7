// The whole story of issue 12 in one call: `kode-gopher exec` of a snippet with credentials
// configured (creds-adc against loopback Google endpoints) and no network option, so the
// sandbox is on the default allowlist. The snippet finds its project, email and token through
// the sandbox's metadata emulator with cloud.google.com/go/compute/metadata and
// golang.org/x/oauth2/google — the very token the host minted — and lists the buckets and reads
// an object of "storage.googleapis.com" (fake-gcs-server, by the test's /etc/hosts) with
// storage.NewClient(ctx), authenticated, through the egress proxy on port 443.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "egress_world.hpp"
#include "daemon_fixture.hpp"
#include "loopback_google.hpp"
#include "../support/test_json.hpp"

namespace kg::test::egress {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("hostile egress: kode-gopher exec with credentials and no network option reaches storage as the user") {
  LoopbackGoogle google;
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {required_env("KG_CREDS_ADC_PLUGIN_DIR")};
  DaemonFixture probe;  // a folder for the ADC file, outside the daemon's reach
  const std::string adc = probe.dir() + "/application_default_credentials.json";
  std::ofstream(adc) << R"({"type": "authorized_user", "client_id": ")" << google.client_id
                     << R"(", "client_secret": ")" << google.client_secret
                     << R"(", "refresh_token": ")" << google.refresh_token << R"("})";
  options.extra_sections = "[credentials]\nplugin = creds-adc\n[creds-adc]\nadc_file = " + adc +
                           "\nproject = test-project\ntoken_url = " + google.token_url() +
                           "\ntokeninfo_url = " + google.tokeninfo_url() +
                           "\nuserinfo_url = " + google.userinfo_url() + "\n";
  DaemonFixture daemon(options);
  {
    std::ifstream config(daemon.config_path());
    const std::string text((std::istreambuf_iterator<char>(config)), std::istreambuf_iterator<char>());
    REQUIRE_FALSE(contains(text, "network"));  // no network option set by hand
  }
  daemon.start();

  const std::string snippet = R"(package snippet

import (
	"context"
	"io"
	"os"

	"cloud.google.com/go/compute/metadata"
	"cloud.google.com/go/storage"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
)

const peerCertificate = `)" + world().certificate_pem + R"(`

func run(ctx context.Context) (any, error) {
	// The one test-specific step: trust the fake storage.googleapis.com's certificate.
	if err := os.WriteFile("/tmp/peer.pem", []byte(peerCertificate), 0o600); err != nil {
		return nil, err
	}
	os.Setenv("SSL_CERT_FILE", "/tmp/peer.pem")

	project, err := metadata.ProjectIDWithContext(ctx)
	if err != nil {
		return nil, err
	}
	email, err := metadata.EmailWithContext(ctx, "default")
	if err != nil {
		return nil, err
	}
	credentials, err := google.FindDefaultCredentials(ctx, storage.ScopeReadOnly)
	if err != nil {
		return nil, err
	}
	token, err := credentials.TokenSource.Token()
	if err != nil {
		return nil, err
	}

	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	var buckets []string
	it := client.Buckets(ctx, project)
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
	reader, err := client.Bucket(")" + std::string(kBucket) + R"(").Object(")" + kObject + R"(").NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	text, err := io.ReadAll(reader)
	if err != nil {
		return nil, err
	}
	return map[string]any{"project": project, "email": email, "token": token.AccessToken,
		"buckets": buckets, "object": string(text)}, nil
}
)";
  const std::string file = daemon.dir() + "/storage_snippet.go";
  std::ofstream(file) << snippet;
  std::string out, err;
  const int code = run_cli({"--config", daemon.config_path(), "exec", "--json", file}, out, err);
  INFO("exit " << code << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(code == 0);
  kg::json::ReadJson result_read = kg::test::read_test_json(out);
  rapidjson::Document& result = result_read.document;
  REQUIRE_FALSE(result_read.refused.has_value());
  REQUIRE(json_string(result, "status") == "ok");
  CHECK_FALSE(result.HasMember("warnings"));  // nothing was refused
  const auto& value = result["result"]["value"];
  REQUIRE(value.IsObject());
  CHECK(std::string(value["project"].GetString()) == "test-project");
  CHECK(std::string(value["email"].GetString()) == google.user_email);
  // Exactly the token the host minted for this user, read through the emulator.
  CHECK(google.subject_of(value["token"].GetString()) == google.user_email);
  REQUIRE(value["buckets"].IsArray());
  REQUIRE(value["buckets"].Size() == 1);
  CHECK(std::string(value["buckets"][0].GetString()) == kBucket);
  CHECK(std::string(value["object"].GetString()) == kObjectText);
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
