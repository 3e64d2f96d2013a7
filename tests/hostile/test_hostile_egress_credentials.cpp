// The whole story of issue 12 in one call: `kode-gopher exec` of a snippet with credentials
// configured (creds-adc against loopback Google endpoints, mode = access-token) and no network
// option, so the sandbox is on the default allowlist. The snippet finds its project, email and token through
// the sandbox's metadata emulator with cloud.google.com/go/compute/metadata and
// golang.org/x/oauth2/google — the very token the host minted — and lists the buckets and reads
// an object of "storage.googleapis.com" (fake-gcs-server, by the test's /etc/hosts) with
// storage.NewClient(ctx), authenticated, through the egress proxy on port 443.
//
// Then issue 25 in mode sealed (the default): the same storage code, with nothing test-specific
// in the program, reaches the fake through the proxy's TLS (the daemon trusts the fake's
// certificate through [sandbox] egress_upstream_ca_file); the program's token is a placeholder;
// and a scan program (tests/hostile/data/token_scan.go) finds the real token in none of its
// environment, the files it can read, other processes' environments and command lines, or its
// own memory.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "adc_daemon_options.hpp"
#include "egress_world.hpp"
#include "daemon_fixture.hpp"
#include "loopback_google.hpp"
#include "test_network.hpp"
#include "../support/test_json.hpp"

namespace kg::test::egress {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("hostile egress: kode-gopher exec with credentials and no network option reaches storage as the user") {
  LoopbackGoogle google;
  DaemonFixture probe;  // a folder for the ADC file, outside the daemon's reach
  // The daemon's proxy terminates TLS for Google API hosts in every mode (adc_daemon_options).
  DaemonFixture daemon(adc_daemon_options(google, probe.dir(), "access-token"));
  {
    std::ifstream config(daemon.config_path());
    const std::string text((std::istreambuf_iterator<char>(config)), std::istreambuf_iterator<char>());
    REQUIRE_FALSE(contains(text, "network ="));  // no network option set by hand
  }
  daemon.start();

  const std::string snippet = R"(package snippet

import (
	"context"
	"io"

	"cloud.google.com/go/compute/metadata"
	"cloud.google.com/go/storage"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
)

func run(ctx context.Context) (any, error) {
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


namespace {

// The snippet of the sealed test, with nothing test-specific: storage.NewClient(ctx) (REST over
// HTTP/2, which Go's default transport negotiates), the JSON API by hand over HTTP/2 and over
// HTTP/1.1 (a custom TLS config keeps net/http on HTTP/1.1), and gRPC-Go's ListBuckets with the
// token as per-RPC credentials — all to "storage.googleapis.com" through the proxy's TLS.
const char* kSealedStorageSnippet = R"(package snippet

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
	pb "google.golang.org/genproto/googleapis/storage/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/oauth"
)

func listByHand(client *http.Client) (string, []string, error) {
	response, err := client.Get("https://storage.googleapis.com/storage/v1/b?project=test-project")
	if err != nil {
		return "", nil, err
	}
	defer response.Body.Close()
	if response.StatusCode != 200 {
		text, _ := io.ReadAll(response.Body)
		return "", nil, fmt.Errorf("%s: %s", response.Status, text)
	}
	var body struct {
		Items []struct{ Name string } `json:"items"`
	}
	if err := json.NewDecoder(response.Body).Decode(&body); err != nil {
		return "", nil, err
	}
	var names []string
	for _, bucket := range body.Items {
		names = append(names, bucket.Name)
	}
	return response.Proto, names, nil
}

func run(ctx context.Context) (any, error) {
	tokens, err := google.DefaultTokenSource(ctx, storage.ScopeReadOnly)
	if err != nil {
		return nil, err
	}
	token, err := tokens.Token()
	if err != nil {
		return nil, err
	}
	client, err := storage.NewClient(ctx)
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
			return nil, fmt.Errorf("storage client: %w", err)
		}
		buckets = append(buckets, bucket.Name)
	}
	reader, err := client.Bucket("kg-bucket").Object("hello.txt").NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	text, err := io.ReadAll(reader)
	if err != nil {
		return nil, err
	}

	h2Proto, h2Buckets, err := listByHand(oauth2.NewClient(ctx, tokens))
	if err != nil {
		return nil, fmt.Errorf("HTTP/2 by hand: %w", err)
	}
	h1 := &http.Client{Transport: &oauth2.Transport{Source: tokens,
		Base: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{}}}}
	h1Proto, h1Buckets, err := listByHand(h1)
	if err != nil {
		return nil, fmt.Errorf("HTTP/1.1 by hand: %w", err)
	}

	conn, err := grpc.NewClient("storage.googleapis.com:443",
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{})),
		grpc.WithPerRPCCredentials(oauth.TokenSource{TokenSource: tokens}))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	listed, err := pb.NewStorageClient(conn).ListBuckets(ctx, &pb.ListBucketsRequest{Project: "test-project"})
	if err != nil {
		return nil, fmt.Errorf("gRPC ListBuckets: %w", err)
	}
	var grpcBuckets []string
	for _, bucket := range listed.Items {
		grpcBuckets = append(grpcBuckets, bucket.Name)
	}
	return map[string]any{"token": token.AccessToken, "buckets": buckets, "object": string(text),
		"h2_proto": h2Proto, "h2_buckets": h2Buckets, "h1_proto": h1Proto, "h1_buckets": h1Buckets,
		"grpc_buckets": grpcBuckets, "ssl_cert_file": os.Getenv("SSL_CERT_FILE")}, nil
}
)";

// tests/hostile/data/token_scan.go, looking for `secret`: the scan's `masked` bytes are the
// secret XORed with 0x5a, so neither the source nor the program holds it.
std::string scan_program(const std::string& secret) {
  std::string masked;
  for (const unsigned char c : secret) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x, ", c ^ 0x5a);
    masked += hex;
  }
  const std::string path = required_env("KG_HOSTILE_DATA_DIR") + "/token_scan.go";
  std::ifstream in(path);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string empty = "var masked = []byte{}";
  const auto at = source.find(empty);
  INFO(path);
  REQUIRE(at != std::string::npos);
  source.replace(at, empty.size(), "var masked = []byte{" + masked + "}");
  return source;
}

}  // namespace

TEST_CASE("hostile egress: sealed by default, storage works through the proxy and the sandbox never holds the real token") {
  LoopbackGoogle google;
  DaemonFixture probe;
  // No mode: sealed is the default. The daemon (not the program) trusts the fake's certificate.
  DaemonFixture daemon(adc_daemon_options(google, probe.dir()));
  daemon.start();

  std::string out, err;
  REQUIRE(run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 0);
  CHECK(contains(out, "mode: sealed (creds-adc)"));

  const std::string file = daemon.dir() + "/sealed_storage.go";
  std::ofstream(file) << kSealedStorageSnippet;
  int code = run_cli({"--config", daemon.config_path(), "exec", "--json", file}, out, err);
  INFO("exit " << code << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(code == 0);
  {
    kg::json::ReadJson read = kg::test::read_test_json(out);
    rapidjson::Document& result = read.document;
    REQUIRE(json_string(result, "status") == "ok");
    const auto& value = result["result"]["value"];
    REQUIRE(value.IsObject());
    const std::string placeholder = value["token"].GetString();
    CHECK(placeholder.starts_with("kg-sealed."));
    CHECK(google.subject_of(placeholder).empty());  // Google never issued it
    CHECK(std::string(value["ssl_cert_file"].GetString()) == "/opt/kode-gopher/ca-bundle.pem");
    for (const char* list : {"buckets", "h2_buckets", "h1_buckets", "grpc_buckets"}) {
      CAPTURE(list);
      REQUIRE(value[list].IsArray());
      REQUIRE(value[list].Size() == 1);
      CHECK(std::string(value[list][0].GetString()) == kBucket);
    }
    CHECK(std::string(value["object"].GetString()) == kObjectText);
    CHECK(std::string(value["h2_proto"].GetString()) == "HTTP/2.0");
    CHECK(std::string(value["h1_proto"].GetString()) == "HTTP/1.1");
    if (result.HasMember("warnings")) {  // nothing refused, upstream verified
      for (const auto& warning : result["warnings"].GetArray()) {
        CHECK_FALSE(contains(warning.GetString(), "egress"));
        CHECK_FALSE(contains(warning.GetString(), "sealed"));
      }
    }
  }
  const auto issued = google.issued();
  REQUIRE(issued.size() == 1);
  const std::string real_token = issued.back().value;

  // The scan, as a program (the token is cached by creds-adc, so this call's real token is the
  // same one).
  const std::string scan = daemon.dir() + "/scan.go";
  std::ofstream(scan) << scan_program(real_token);
  code = run_cli({"--config", daemon.config_path(), "exec", "--json", scan}, out, err);
  INFO("exit " << code << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(code == 0);
  kg::json::ReadJson read = kg::test::read_test_json(out);
  const std::string stdout_text = json_string(read.document, "stdout");
  INFO(stdout_text);
  CHECK(contains(stdout_text, "control=true "));  // the walk did read /tmp's files
  CHECK(contains(stdout_text, "found=[]"));
  CHECK_FALSE(contains(stdout_text, "files=0 "));
  CHECK_FALSE(contains(stdout_text, "memory=0 "));
  CHECK(google.issued().size() == 1);
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
