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
// and a scan program finds the real token in none of its environment, the files it can read,
// other processes' environments and command lines, or its own memory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

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

// A program that looks for `secret` everywhere it can: its environment, every file it can read
// (but the read-only toolchain, module and build caches the host made before any token), every
// process's environment and command line, and every readable mapping of its own memory. The
// secret is in the source only XORed with 0x5a and is compared byte by byte, so the program
// never holds it itself. Returns where it was found, and how much it looked at.
std::string scan_program(const std::string& secret) {
  std::string masked;
  for (const unsigned char c : secret) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x, ", c ^ 0x5a);
    masked += hex;
  }
  return R"(package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var masked = []byte{)" + masked + R"(}

// The control: a file holding this (unmasked) text must be found by the same walk, or the scan
// proves nothing.
var control = []byte("kode-gopher scan control: the walk reads files")

// Finds the secret's first byte with bytes.IndexByte (fast), then compares the rest byte by byte
// against the masked copy.
func holds(data []byte) bool {
	first := masked[0] ^ 0x5a
	for i := 0; i < len(data); i++ {
		k := bytes.IndexByte(data[i:], first)
		if k < 0 {
			return false
		}
		i += k
		if i+len(masked) > len(data) {
			return false
		}
		j := 1
		for j < len(masked) && data[i+j] == masked[j]^0x5a {
			j++
		}
		if j == len(masked) {
			return true
		}
	}
	return false
}

// One buffer for every read, so the scan's own memory stays small; chunks overlap by the
// secret's length, so a secret across two chunks is still found.
var buffer = make([]byte, 1<<20)

// Scans `size` bytes of r from `offset` (size < 0: to the end). Returns the bytes read and
// whether the secret was there.
func scan(r io.ReaderAt, offset, size int64) (int64, bool) {
	var done int64
	keep := 0
	for size < 0 || done < size {
		want := int64(len(buffer) - keep)
		if size >= 0 && size-done < want {
			want = size - done
		}
		n, err := r.ReadAt(buffer[keep:keep+int(want)], offset+done)
		if n > 0 {
			done += int64(n)
			if holds(buffer[:keep+n]) {
				return done, true
			}
			valid := keep + n
			keep = len(masked) - 1
			if keep > valid {
				keep = valid
			}
			copy(buffer, buffer[valid-keep:valid])
		}
		if err != nil || n == 0 {
			break
		}
	}
	return done, false
}

var at atomic.Value // where the scan is, for the report if it runs out of time

func main() {
	began := time.Now()
	at.Store("start")
	time.AfterFunc(15*time.Second, func() {
		fmt.Println("scan ran out of time at", at.Load())
		os.Exit(3)
	})
	if err := os.WriteFile("/tmp/scan-control.txt", control, 0o600); err != nil {
		fmt.Println("cannot write the control file:", err)
		os.Exit(1)
	}
	controlFound := false
	var found []string
	files, bytes := 0, int64(0)
	if holds([]byte(strings.Join(os.Environ(), "\n"))) {
		found = append(found, "environment")
	}
	skip := map[string]bool{"/proc": true, "/sys": true, "/usr": true,
		os.Getenv("GOROOT"): true, os.Getenv("GOMODCACHE"): true, "/opt/kode-gopher/gocache-base": true,
		"/opt/kode-gopher/gomodcache-extra": true, "/opt/kode-gopher/bincache": true}
	filepath.WalkDir("/", func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entry.IsDir() && skip[path] {
			return filepath.SkipDir
		}
		if !entry.Type().IsRegular() {
			return nil
		}
		at.Store(path)
		file, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer file.Close()
		// A device bound over a file (bubblewrap's /dev/full, /dev/zero...) lists as a file.
		if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
			return nil
		}
		files++
		if path == "/tmp/scan-control.txt" {
			data := make([]byte, len(control))
			n, _ := file.ReadAt(data, 0)
			controlFound = n == len(control) && string(data) == string(control)
		}
		fileBegan := time.Now()
		n, hit := scan(file, 0, -1)
		if took := time.Since(fileBegan); took > time.Second {
			fmt.Println("slow file", path, n, took)
		}
		bytes += n
		if hit {
			found = append(found, path)
		}
		return nil
	})
	filesTook := time.Since(began)
	fmt.Println("files scanned in", filesTook)
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
	memory := int64(0)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		fmt.Println("no /proc/self/maps:", err)
		os.Exit(1)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		fmt.Println("no /proc/self/mem:", err)
		os.Exit(1)
	}
	lines := bufio.NewScanner(strings.NewReader(string(maps)))
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 2 || fields[1][0] != 'r' {
			continue
		}
		var start, end uint64
		fmt.Sscanf(fields[0], "%x-%x", &start, &end)
		at.Store(lines.Text())
		regionBegan := time.Now()
		n, hit := scan(mem, int64(start), int64(end-start))
		if took := time.Since(regionBegan); took > time.Second {
			fmt.Println("slow region", lines.Text(), n, took)
		}
		memory += n
		if hit {
			found = append(found, "memory "+fields[0])
		}
	}
	fmt.Printf("files=%d bytes=%d memory=%d control=%v found=%q (files %s, all %s)\n", files, bytes,
		memory, controlFound, found, filesTook, time.Since(began))
}
)";
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
