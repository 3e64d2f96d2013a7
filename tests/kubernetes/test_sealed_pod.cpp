// Sealed credentials in a real pod (issue 25, docs/kubernetes.md "Egress through the daemon"): the
// daemon with the kubernetes provider, creds-adc in mode sealed against loopback Google
// endpoints, and its egress gateway on the test network's loopback
// ([kubernetes] egress_proxy_address), runs a storage program in a pod of the test cluster (the
// kubelet player runs it from the sandbox image's root filesystem in bubblewrap). Inside the
// test's private network (test_sealed_main.cpp), storage.googleapis.com is fake-gcs-server over
// HTTPS on 198.51.100.1 and, on another port of the same name, a recording front of this test
// (HTTP/1.1 over TLS with the same certificate) that keeps the Authorization it receives.
//
// Proven: the program lists the bucket through the gateway with nothing test-specific; the front
// saw the real token the host minted; the program's token, its metadata emulator's answer, its
// environment, every process's environment and command line and the files under its writable
// and configuration folders hold only the placeholder (no trace of any token the test's Google
// issued); a direct dial to the fake's address, ignoring the proxy, finds no route (the pod's
// network is its own, with the gateway as its only way out: tests/images/pod_network.py); the
// result's api_calls list exactly the two requests.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adc_daemon_options.hpp"
#include "daemon_fixture.hpp"
#include "egress_world.hpp"
#include "loopback_google.hpp"
#include "test_cluster.hpp"
#include "test_network.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace {

using egress::world;

// Storage's JSON API stand-in on the world's "internet" listener (every internet address, its
// own port), with the world's certificate (it names storage.googleapis.com): a RecordingTlsPeer
// answering every request with a one-object listing; it keeps each Authorization header.
PeerAnswer list_objects(const PeerRequest&) {
  return {200, "OK", "application/json",
          R"({"kind":"storage#objects","items":[{"kind":"storage#object","name":"front.txt","bucket":"kg-bucket"}]})"};
}

// The gateway's port: test_sealed_main.cpp fixed it before the cluster started, and every pod's
// only way out is 127.0.0.1 at that port.
int gateway_port() {
  const std::string only_reach = required_env("KG_K8S_POD_ONLY_REACH");
  return std::stoi(only_reach.substr(only_reach.rfind(':') + 1));
}

// "ya29.test-", the start of every token the test's Google issues (loopback_google.cpp), XORed
// with 0x5a so that neither the program's source nor its binary holds it.
std::string masked_token_prefix() {
  std::string masked;
  for (const unsigned char c : std::string("ya29.test-")) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x, ", c ^ 0x5a);
    masked += hex;
  }
  return masked;
}

std::string pod_program(int front_port, int gateway_port) {
  return R"(package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
)

var masked = []byte{)" + masked_token_prefix() + R"(}

func holds(data []byte) bool {
	needle := make([]byte, len(masked))
	for i, b := range masked {
		needle[i] = b ^ 0x5a
	}
	return bytes.Contains(data, needle)
}

func must(err error, what string) {
	if err != nil {
		fmt.Println(what+":", err)
		os.Exit(1)
	}
}

func main() {
	ctx := context.Background()
	out := map[string]any{}
	tokens, err := google.DefaultTokenSource(ctx, storage.ScopeReadOnly)
	must(err, "token source")
	token, err := tokens.Token()
	must(err, "token")
	out["token"] = token.AccessToken

	client, err := storage.NewClient(ctx)
	must(err, "storage client")
	defer client.Close()
	var objects []string
	it := client.Bucket("kg-bucket").Objects(ctx, nil)
	for {
		attrs, err := it.Next()
		if err == iterator.Done {
			break
		}
		must(err, "listing through the gateway")
		objects = append(objects, attrs.Name)
	}
	out["objects"] = objects

	// The recording front: the same API name on another port, over HTTP/1.1.
	h1 := &http.Client{Transport: &oauth2.Transport{Source: tokens,
		Base: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{}}}}
	response, err := h1.Get("https://storage.googleapis.com:)" + std::to_string(front_port) + R"(/storage/v1/b/kg-bucket/o")
	must(err, "the recording front")
	body, _ := io.ReadAll(response.Body)
	response.Body.Close()
	out["front_status"] = response.Status
	out["front_body"] = string(body)

	// What the metadata emulator answers, as any client reads it.
	request, _ := http.NewRequest("GET", "http://"+os.Getenv("GCE_METADATA_HOST")+
		"/computeMetadata/v1/instance/service-accounts/default/token", nil)
	request.Header.Set("Metadata-Flavor", "Google")
	answer, err := http.DefaultClient.Do(request)
	must(err, "metadata")
	metadata, _ := io.ReadAll(answer.Body)
	answer.Body.Close()
	out["metadata_placeholder"] = bytes.Contains(metadata, []byte("kg-sealed."))

	// A program ignoring the proxy: the fake's own address, dialled directly.
	if conn, err := net.DialTimeout("tcp", "198.51.100.1:443", 5*time.Second); err != nil {
		out["direct_dial"] = err.Error()
	} else {
		conn.Close()
		out["direct_dial"] = "connected"
	}

	var found []string
	if holds([]byte(strings.Join(os.Environ(), "\n"))) {
		found = append(found, "environment")
	}
	if holds(metadata) {
		found = append(found, "metadata")
	}
	files := 0
	for _, root := range []string{"/app", "/tmp", os.Getenv("HOME"), "/etc", "/run", "/var/run"} {
		filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err != nil || !entry.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			files++
			if holds(data) {
				found = append(found, path)
			}
			return nil
		})
	}
	pids, _ := os.ReadDir("/proc")
	for _, pid := range pids {
		if _, err := strconv.Atoi(pid.Name()); err != nil {
			continue
		}
		for _, part := range []string{"environ", "cmdline"} {
			if data, err := os.ReadFile("/proc/" + pid.Name() + "/" + part); err == nil && holds(data) {
				found = append(found, "/proc/"+pid.Name()+"/"+part)
			}
		}
	}
	out["found"] = found
	out["files"] = files
	out["proxy_is_gateway"] = strings.HasSuffix(os.Getenv("HTTPS_PROXY"), "@127.0.0.1:)" +
         std::to_string(gateway_port) + R"(")
	out["ssl_cert_file"] = os.Getenv("SSL_CERT_FILE")
	text, _ := json.Marshal(out)
	fmt.Println(string(text))
}
)";
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("sealed credentials in a pod: storage through the daemon's gateway, the real token only on the wire") {
  auto& cluster = TestCluster::get();
  cluster.wait_for_ready_pool(1, 120);
  LoopbackGoogle google;
  RecordingTlsPeer front(egress::internet_listener(), list_objects);
  DaemonFixture probe;  // a folder for the ADC file, outside the daemon's reach
  const int gateway_port = kg::test::gateway_port();
  // creds-adc in mode sealed (the default), the fake's certificate trusted upstream.
  DaemonFixtureOptions options = egress::adc_daemon_options(google, probe.dir());
  options.empty_base_cache = true;  // the image carries it
  options.extra_sandbox_keys +=
      "provider = kubernetes\nallowed_ports = 443, " + std::to_string(world().internet_port) + "\n";
  const std::string gateway = "127.0.0.1:" + std::to_string(gateway_port);
  options.extra_sections += "[kubernetes]\nkubeconfig = " + cluster.daemon_kubeconfig() +
                            "\nnamespace = " + TestCluster::kNamespace +
                            "\nwarm_pool = " + TestCluster::kWarmPool +
                            "\nrouter = " + cluster.router() + "\nclaim_timeout_s = 120" +
                            "\ndaemon_id = kg-test-sealed\negress_proxy_address = " + gateway +
                            "\negress_proxy_listen = " + gateway + "\n";
  DaemonFixture daemon(options);
  daemon.start();
  std::string out, err;
  REQUIRE(run_cli({"--config", daemon.config_path(), "auth", "status"}, out, err) == 0);
  CHECK(out.find("mode: sealed (creds-adc)") != std::string::npos);

  const auto session = daemon.open_session();
  const auto result = daemon.execute(session, pod_program(world().internet_port, gateway_port));
  INFO(file_text(daemon.dir() + "/daemon.log").substr(0, 20000));
  const std::string stdout_text = json_string(result, "stdout");
  INFO("stdout: " << stdout_text);
  REQUIRE(json_string(result, "status") == "ok");
  // It ran in a pod: the session's sandbox is a claim of the cluster.
  const auto record = daemon.json(daemon.get("/v1/sessions/" + session));
  CHECK(json_string(record, "provider") == "kubernetes");
  CHECK(cluster.api("GET", claim_path(json_string(record, "sandbox_id"))).status == 200);

  kg::json::ReadJson read = kg::test::read_test_json(stdout_text);
  REQUIRE_FALSE(read.refused.has_value());
  const auto& value = read.document;
  const std::string placeholder = json_string(value, "token");
  CHECK(placeholder.starts_with("kg-sealed."));
  CHECK(google.subject_of(placeholder).empty());  // Google never issued it
  REQUIRE(value["objects"].IsArray());
  REQUIRE(value["objects"].Size() == 1);
  CHECK(std::string(value["objects"][0].GetString()) == egress::kObject);
  CHECK(json_string(value, "front_status") == "200 OK");
  CHECK(value["metadata_placeholder"].GetBool());
  CHECK(value["proxy_is_gateway"].GetBool());
  CHECK(json_string(value, "ssl_cert_file") == "/app/.kode-gopher/ca-bundle.pem");
  // Its only way out is the gateway: a direct dial finds no route.
  CHECK(json_string(value, "direct_dial").find("network is unreachable") != std::string::npos);
  // Nothing the pod can read holds any token the test's Google issued; the walk did read files.
  REQUIRE(value["found"].IsNull());
  CHECK(value["files"].GetInt() > 0);

  // The front saw the real token the host minted for the user, and nothing else.
  const auto issued = google.issued();
  REQUIRE(issued.size() == 1);
  CHECK(google.subject_of(issued.back().value) == google.user_email);
  CHECK(front.authorizations() == std::vector<std::string>{"Bearer " + issued.back().value});

  // api_calls: exactly the two listings, both read by the gateway and forwarded.
  REQUIRE(result.HasMember("api_calls"));
  const auto& api_calls = result["api_calls"];
  CHECK(api_calls["count"].GetUint64() == 2);
  CHECK(api_calls["refused"].GetUint64() == 0);
  REQUIRE(api_calls["calls"].Size() == 2);
  for (const auto& call : api_calls["calls"].GetArray()) {
    CHECK(json_string(call, "service") == "storage");
    CHECK(json_string(call, "method") == "storage.objects.list");
    CHECK(json_string(call, "resource") == "b/kg-bucket");
    CHECK(call["http_status"].GetInt() == 200);
  }
  CHECK(daemon.del("/v1/sessions/" + session).status == 200);
  daemon.stop_gracefully();
}

}  // namespace kg::test
