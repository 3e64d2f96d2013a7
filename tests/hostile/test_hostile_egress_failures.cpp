// How sealed credentials fail, end to end through a real daemon with creds-adc (sealed, the
// default) and fake-gcs-server named storage.googleapis.com (docs/egress.md, "What a program sees
// when it does not play along"):
//   - a program that pins its own CA pool (not the sandbox's SSL_CERT_FILE) gets a TLS error
//     from Go's own verifier, and the call's warnings carry the proxy's "the program did not
//     complete TLS with the proxy" with what to do;
//   - an upstream the proxy cannot verify (a daemon without [sandbox] egress_upstream_ca_file,
//     so fake-gcs-server's self-signed certificate fails) gets gRPC PERMISSION_DENIED over
//     HTTP/2 and a 403 over REST, each naming why, before any request leaves.
#include <doctest/doctest.h>

#include "adc_daemon_options.hpp"
#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "loopback_google.hpp"
#include "sealed_runs.hpp"

namespace kg::test::egress {
namespace {

// Trusts only a pool of its own (empty: a pinning client trusts Google's CAs, none of which
// signed the proxy's certificate either).
const char* kPinningProgram = R"(package snippet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
)

func run(ctx context.Context) (any, error) {
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
		TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool()}}}
	response, err := client.Get("https://storage.googleapis.com/storage/v1/b?project=test-project")
	if err != nil {
		return map[string]any{"error": err.Error()}, nil
	}
	response.Body.Close()
	return map[string]any{"status": response.Status}, nil
}
)";

// gRPC (HTTP/2) ListBuckets and the storage client's REST listing, each reporting its error.
const char* kListBothWays = R"(package snippet

import (
	"context"
	"crypto/tls"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2/google"
	pb "google.golang.org/genproto/googleapis/storage/v1"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/oauth"
	"google.golang.org/grpc/status"
)

func run(ctx context.Context) (any, error) {
	tokens, err := google.DefaultTokenSource(ctx, storage.ScopeReadOnly)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient("storage.googleapis.com:443",
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{})),
		grpc.WithPerRPCCredentials(oauth.TokenSource{TokenSource: tokens}))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_, grpcErr := pb.NewStorageClient(conn).ListBuckets(ctx, &pb.ListBucketsRequest{Project: "test-project"})
	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	restErr := "none"
	it := client.Buckets(ctx, "test-project")
	if _, err := it.Next(); err != nil && err != iterator.Done {
		restErr = err.Error()
	}
	return map[string]any{"grpc_code": status.Code(grpcErr).String(),
		"grpc_message": status.Convert(grpcErr).Message(), "rest_error": restErr}, nil
}
)";

}  // namespace

TEST_CASE("hostile egress failures: a CA-pinning program gets a TLS error and the result says why") {
  LoopbackGoogle google;
  DaemonFixture probe;
  DaemonFixture daemon(adc_daemon_options(google, probe.dir()));
  daemon.start();
  auto run = exec_program(daemon, "pinning.go", kPinningProgram);
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  const auto& value = run.result()["result"]["value"];
  CHECK(contains(member_text(value, "error"), "x509: certificate signed by unknown authority"));
  const auto warnings = warnings_of(run.result());
  INFO(joined(warnings));
  CHECK(has_warning(warnings, "the program did not complete TLS with the proxy"));
  CHECK(has_warning(warnings, "a program must trust the sandbox's CA bundle (SSL_CERT_FILE)"));
  CHECK(has_warning(warnings, "cannot reach storage.googleapis.com with sealed credentials"));
  CHECK_FALSE(run.result().HasMember("api_calls"));  // no request was read
  daemon.stop_gracefully();
}

TEST_CASE("hostile egress failures: an upstream the proxy cannot verify is refused over gRPC and REST, naming why") {
  LoopbackGoogle google;
  DaemonFixture probe;
  auto options = adc_daemon_options(google, probe.dir());
  options.extra_sandbox_keys.clear();  // no egress_upstream_ca_file: the fake's certificate fails
  DaemonFixture daemon(options);
  daemon.start();
  auto run = exec_program(daemon, "list_both_ways.go", kListBothWays);
  INFO(run.describe());
  REQUIRE(member_text(run.result(), "status") == "ok");
  const auto& value = run.result()["result"]["value"];
  CHECK(member_text(value, "grpc_code") == "PermissionDenied");
  const std::string grpc_message = member_text(value, "grpc_message");
  CHECK(contains(grpc_message, "cannot reach storage.googleapis.com securely"));
  CHECK(contains(grpc_message, "failed verification"));
  const std::string rest_error = member_text(value, "rest_error");
  CHECK(contains(rest_error, "403"));
  CHECK(contains(rest_error, "cannot reach storage.googleapis.com securely"));
  CHECK(has_warning(warnings_of(run.result()), "cannot reach storage.googleapis.com securely"));
  // Each request is recorded with what the program got: 403, or gRPC status 7, and as refused
  // by the proxy itself, since no policy rule explains it (docs/api-policy.md).
  REQUIRE(run.result().HasMember("api_calls"));
  CHECK(run.result()["api_calls"]["refused"].GetInt() ==
        static_cast<int>(run.result()["api_calls"]["calls"].Size()));
  bool grpc_seen = false;
  for (const auto& call : run.result()["api_calls"]["calls"].GetArray()) {
    CAPTURE(member_text(call, "method"));
    CHECK(member_text(call, "refused") == "proxy");
    if (member_text(call, "method") == "google.storage.v1.Storage/ListBuckets") {
      grpc_seen = true;
      CHECK(call["grpc_status"].GetInt() == 7);
    } else {
      CHECK(member_text(call, "method") == "storage.buckets.list");
      CHECK(call["http_status"].GetInt() == 403);
    }
  }
  CHECK(grpc_seen);
  daemon.stop_gracefully();
}

}  // namespace kg::test::egress
