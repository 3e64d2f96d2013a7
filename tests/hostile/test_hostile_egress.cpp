// [sandbox] network = allowlist against a real daemon, real sandboxes and real Go programs, in
// the network this process made (egress_world.hpp): the only way out is the daemon's egress
// proxy, which admits listed names on listed ports and refuses everything else — names off the
// list, IP literals (even listed ones, when their address is not public), names that resolve to
// the host's loopback, private, metadata or host addresses, ports off the list — and each
// refusal reaches the call's warnings. cloud.google.com/go/storage code lists buckets and reads
// an object of fake-gcs-server through it.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "hostile_checks.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

using namespace std::chrono_literals;
using hostile::execute_once;
using hostile::string_member;

}  // namespace

TEST_CASE("hostile egress: storage code lists buckets and reads an object through the allowlist proxy") {
  DaemonFixture daemon({.extra_sandbox_keys = allowlist_keys()});
  daemon.start();
  const std::string snippet = R"(package snippet

import (
	"context"
	"io"
	"os"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

func run(ctx context.Context) (any, error) {
	// The storage client talks plain HTTP to an emulator without credentials; HTTP_PROXY (set
	// by the sandbox) carries it to the daemon's egress proxy, the only way out.
	os.Setenv("STORAGE_EMULATOR_HOST", ")" + std::string(kStorageHost) + ":" + std::to_string(kStoragePort) + R"(")
	client, err := storage.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	var buckets []string
	it := client.Buckets(ctx, "kg-project")
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
	return map[string]any{"buckets": buckets, "object": string(text), "proxy": os.Getenv("HTTP_PROXY")}, nil
}
)";
  const auto result = execute_once(daemon, snippet);
  INFO("result: " << string_member(result, "stderr") << " " << joined(warnings_of(result)));
  REQUIRE(string_member(result, "status") == "ok");
  const auto& value = result["result"]["value"];
  REQUIRE(value["buckets"].IsArray());
  REQUIRE(value["buckets"].Size() == 1);
  CHECK(std::string(value["buckets"][0].GetString()) == kBucket);
  CHECK(std::string(value["object"].GetString()) == kObjectText);
  CHECK(std::string(value["proxy"].GetString()) == "http://127.0.0.1:3128");
  CHECK(warnings_of(result).empty());
}

TEST_CASE("hostile egress: gRPC over HTTP/2 and HTTPS over HTTP/1.1 go through CONNECT tunnels") {
  DaemonFixture daemon({.extra_sandbox_keys = allowlist_keys()});
  daemon.start();
  const std::string target = std::string(kStorageHost) + ":" + std::to_string(kStorageTlsPort);
  const std::string snippet = R"(package snippet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"

	pb "google.golang.org/genproto/googleapis/storage/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

const peerCertificate = `)" + world().certificate_pem + R"(`

func run(ctx context.Context) (any, error) {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM([]byte(peerCertificate))
	tlsConfig := &tls.Config{RootCAs: roots}

	// gRPC-Go finds HTTPS_PROXY itself and asks the proxy to CONNECT by name (the sandbox has
	// no resolver); HTTP/2 is negotiated inside the tunnel.
	conn, err := grpc.NewClient(")" + target + R"(", grpc.WithTransportCredentials(credentials.NewTLS(tlsConfig)))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	listed, err := pb.NewStorageClient(conn).ListBuckets(ctx, &pb.ListBucketsRequest{Project: "kg-project"})
	if err != nil {
		return nil, fmt.Errorf("gRPC ListBuckets: %w", err)
	}
	var grpcBuckets []string
	for _, bucket := range listed.Items {
		grpcBuckets = append(grpcBuckets, bucket.Name)
	}

	// A custom TLS config keeps net/http on HTTP/1.1, through the same kind of tunnel.
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsConfig}}
	response, err := client.Get("https://)" + target + R"(/storage/v1/b?project=kg-project")
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	var body struct {
		Items []struct{ Name string } `json:"items"`
	}
	if err := json.NewDecoder(response.Body).Decode(&body); err != nil {
		return nil, err
	}
	var httpsBuckets []string
	for _, bucket := range body.Items {
		httpsBuckets = append(httpsBuckets, bucket.Name)
	}
	return map[string]any{"grpc": grpcBuckets, "https": httpsBuckets, "https_protocol": response.Proto}, nil
}
)";
  const auto result = execute_once(daemon, snippet);
  INFO("result: " << string_member(result, "stderr") << " " << joined(warnings_of(result)));
  REQUIRE(string_member(result, "status") == "ok");
  INFO("value: " << string_member(result["result"], "message"));
  const auto& value = result["result"]["value"];
  REQUIRE(value.IsObject());
  REQUIRE(value["grpc"].IsArray());
  REQUIRE(value["grpc"].Size() == 1);
  CHECK(std::string(value["grpc"][0].GetString()) == kBucket);
  REQUIRE(value["https"].IsArray());
  REQUIRE(value["https"].Size() == 1);
  CHECK(std::string(value["https"][0].GetString()) == kBucket);
  CHECK(std::string(value["https_protocol"].GetString()) == "HTTP/1.1");
  CHECK(warnings_of(result).empty());
}

TEST_CASE("hostile egress: the proxy refuses what is not listed, IP literals and non-public addresses") {
  DaemonFixture daemon({.extra_sandbox_keys = allowlist_keys()});
  daemon.start();
  const std::string loopback_port = std::to_string(world().host_service_port);
  const std::string internet_port = std::to_string(world().internet_port);
  const std::string storage_port = std::to_string(kStoragePort);
  const std::string program = R"(package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Domain fronting: a tunnel to an allowed host whose TLS hello asks for another name.
func front(connectTo, serverName string) {
	proxy, _ := url.Parse(os.Getenv("HTTPS_PROXY"))
	conn, err := net.DialTimeout("tcp", proxy.Host, 5*time.Second)
	if err != nil {
		fmt.Println("front: no proxy:", err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", connectTo, connectTo)
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || response.StatusCode != 200 {
		fmt.Println("front: CONNECT refused:", err)
		return
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	client := tls.Client(conn, &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
	if err := client.Handshake(); err != nil {
		fmt.Printf("front %s as %s: handshake failed\n", connectTo, serverName)
		return
	}
	fmt.Printf("front %s as %s: HANDSHAKE DONE\n", connectTo, serverName)
}

func try(url string) { tryWith(url, http.ProxyFromEnvironment) }

// Go never proxies loopback targets by itself (and NO_PROXY names them): force the proxy to ask
// it for the host's loopback.
func tryThroughProxy(target string) {
	proxy, _ := url.Parse(os.Getenv("HTTPS_PROXY"))
	tryWith(target, http.ProxyURL(proxy))
}

func tryWith(target string, proxy func(*http.Request) (*url.URL, error)) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: proxy}}
	response, err := client.Get(target)
	if err != nil {
		fmt.Printf("%s: error %v\n", target, err)
		return
	}
	response.Body.Close()
	fmt.Printf("%s: status %d\n", target, response.StatusCode)
}

func main() {
	// Through the proxy: plain HTTP is an absolute-URI request, HTTPS a CONNECT.
	try("http://)" + std::string(kUnlistedHost) + ":" + storage_port + R"(/storage/v1/b")
	try("https://)" + std::string(kUnlistedHost) + ":" + storage_port + R"(/")
	try("http://198.51.100.1:)" + storage_port + R"(/storage/v1/b")
	tryThroughProxy("https://127.0.0.1:)" + loopback_port + R"(/")
	// Without the proxy, 127.0.0.1 is the sandbox's own loopback, where nothing listens.
	try("https://127.0.0.1:)" + loopback_port + R"(/")
	try("https://)" + std::string(kLoopbackHost) + ":" + loopback_port + R"(/")
	try("https://)" + std::string(kHostSelfHost) + ":" + loopback_port + R"(/")
	try("https://)" + std::string(kPrivateHost) + ":" + internet_port + R"(/")
	try("http://)" + std::string(kMetadataHost) + R"(/computeMetadata/v1/")
	try("http://169.254.169.254/computeMetadata/v1/")
	try("https://)" + std::string(kMixedHost) + ":" + internet_port + R"(/")
	try("https://)" + std::string(kStorageHost) + R"(:22/")
	front(")" + std::string(kStorageHost) + R"(:443", "www.example.com")
	front(")" + std::string(kStorageHost) + R"(:443", ")" + std::string(kStorageHost) + R"(")
	// No route but the proxy: a direct connection fails at once.
	if _, err := net.DialTimeout("tcp", "198.51.100.1:)" + storage_port + R"(", 3*time.Second); err != nil {
		fmt.Println("direct: refused")
	} else {
		fmt.Println("direct: CONNECTED")
	}
}
)";
  const auto result = execute_once(daemon, program);
  const std::string out = string_member(result, "stdout");
  const auto warnings = warnings_of(result);
  INFO("stdout:\n" << out << "stderr:\n" << string_member(result, "stderr") << "warnings:\n"
                   << joined(warnings));
  REQUIRE(string_member(result, "status") == "ok");
  CHECK(out.find("CONNECTED\n") == std::string::npos);
  CHECK(out.find("direct: refused") != std::string::npos);
  // Every plain-HTTP attempt got the proxy's 403; every HTTPS one failed its CONNECT.
  CHECK(out.find("status 200") == std::string::npos);
  CHECK(out.find(std::string("http://") + kUnlistedHost + ":" + storage_port + "/storage/v1/b: status 403") !=
        std::string::npos);
  // A refused CONNECT's error, as Go's client shows it to the program, says why (the reason
  // phrase carries it: Go drops the body of a failed CONNECT).
  CHECK(out.find(std::string("\": Forbidden (kode-gopher egress proxy: refused CONNECT ") +
                 kUnlistedHost + ":" + storage_port + ": " + kUnlistedHost +
                 " is not in [sandbox] allowed_hosts") != std::string::npos);
  CHECK(has_warning(warnings, std::string("egress refused http://") + kUnlistedHost + ":" + storage_port +
                                  ": " + kUnlistedHost + " is not in [sandbox] allowed_hosts"));
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kUnlistedHost + ":" +
                                  storage_port + ": " + kUnlistedHost + " is not in"));
  CHECK(has_warning(warnings, "egress refused http://198.51.100.1:" + storage_port +
                                  ": IP address literals are refused"));
  CHECK(has_warning(warnings, "egress refused CONNECT 127.0.0.1:" + loopback_port +
                                  ": IP address literals are refused"));
  CHECK(out.find("https://127.0.0.1:" + loopback_port + "/: error Get \"https://127.0.0.1:" +
                 loopback_port + "/\": dial tcp 127.0.0.1:" + loopback_port +
                 ": connect: connection refused") != std::string::npos);
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kLoopbackHost + ":" + loopback_port +
                                  ": " + kLoopbackHost + " resolves to 127.0.0.1: loopback"));
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kHostSelfHost + ":" + loopback_port +
                                  ": " + kHostSelfHost + " resolves to 198.51.100.2: an address of the host itself"));
  CHECK(has_warning(warnings, std::string(kPrivateHost) + " resolves to 10.1.2.3: private network"));
  CHECK(has_warning(warnings, std::string(kMetadataHost) + " resolves to 169.254.169.254: link-local"));
  // Listed as a literal, still refused for its address.
  CHECK(has_warning(warnings, "egress refused http://169.254.169.254:80: 169.254.169.254 resolves to "
                              "169.254.169.254: link-local"));
  // One private answer among public ones is enough to refuse.
  CHECK(has_warning(warnings, std::string(kMixedHost) + " resolves to 10.1.2.3: private network"));
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kStorageHost +
                                  ":22: port 22 is not in [sandbox] allowed_ports"));
  // A tunnel to an allowed host that asks TLS for another name is cut; its own name passes.
  CHECK(out.find(std::string("front ") + kStorageHost + ":443 as www.example.com: handshake failed") !=
        std::string::npos);
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kStorageHost +
                                  ":443: the TLS server name www.example.com inside the tunnel is not " +
                                  kStorageHost));
  CHECK(out.find(std::string("front ") + kStorageHost + ":443 as " + kStorageHost +
                 ": HANDSHAKE DONE") != std::string::npos);
  // Nothing reached the host's loopback service or the private address's listener.
  CHECK(sandbox::testing::TestNetwork::drain(world().host_service_fd, 200ms).empty());
  CHECK(sandbox::testing::TestNetwork::drain(world().internet_fd, 200ms).empty());

  // /metrics counts the refusals by kind, and names none of the hosts asked for
  // (docs/metrics.md).
  const auto metrics = daemon.get("/metrics");
  INFO("metrics:\n" << metrics.body);
  REQUIRE(metrics.status == 200);
  const auto count_of = [&](const std::string& reason) {
    const std::string key = "\nkode_gopher_egress_refusals_total{reason=\"" + reason + "\"} ";
    const auto at = metrics.body.find(key);
    return at == std::string::npos ? -1 : std::stoi(metrics.body.substr(at + key.size()));
  };
  CHECK(count_of("host_not_allowed") == 2);
  CHECK(count_of("ip_literal") == 2);
  CHECK(count_of("port_not_allowed") == 1);
  CHECK(count_of("tls_hello") == 1);
  CHECK(count_of("address_not_public") >= 5);
  CHECK(metrics.body.find("kg-test.example") == std::string::npos);
  CHECK(metrics.body.find("198.51.100") == std::string::npos);
}

}  // namespace kg::test::egress
