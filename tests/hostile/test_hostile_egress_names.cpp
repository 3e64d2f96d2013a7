// What a sandbox's program can write as a destination, against a real daemon and real Go code
// in the network this process made (egress_world.hpp): a host text that a resolver would read
// differently from the allowlist (a NUL byte before a listed suffix, raw or percent-encoded) is
// refused and reported, never resolved; a tunnel to a name must open with a TLS ClientHello
// asking for that name — no server name, a truncated hello or plain bytes are refused
// (docs/egress.md, "Names" and step 5).
#include <doctest/doctest.h>

#include <string>

#include "egress_checks.hpp"
#include "egress_world.hpp"
#include "hostile_checks.hpp"
#include "test_network.hpp"

namespace kg::test::egress {

using namespace std::chrono_literals;
using hostile::execute_once;
using hostile::string_member;

TEST_CASE("hostile egress: a NUL in the host and tunnels without a server name are refused") {
  DaemonFixture daemon({.extra_sandbox_keys = allowlist_keys()});
  daemon.start();
  const std::string unlisted = kUnlistedHost;  // resolves to the test peer, 198.51.100.1
  const std::string internet_port = std::to_string(world().internet_port);
  const std::string storage_port = std::to_string(kStoragePort);
  const std::string storage_tls = std::string(kStorageHost) + ":" + std::to_string(kStorageTlsPort);
  const std::string program = R"(package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

func dial() net.Conn {
	proxy, _ := url.Parse(os.Getenv("HTTPS_PROXY"))
	conn, err := net.DialTimeout("tcp", proxy.Host, 5*time.Second)
	if err != nil {
		fmt.Println("no proxy:", err)
		os.Exit(1)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return conn
}

// Sends `request` as written; prints the status line, and when a tunnel opens sends `then`
// into it and prints how many bytes came back before it closed.
func raw(label, request, then string) {
	conn := dial()
	defer conn.Close()
	conn.Write([]byte(request))
	reader := bufio.NewReader(conn)
	status, err := reader.ReadString('\n')
	if err != nil {
		fmt.Printf("%s: no answer (%v)\n", label, err)
		return
	}
	fmt.Printf("%s: %s\n", label, strings.TrimSpace(status))
	if then == "" || !strings.Contains(status, " 200 ") {
		return
	}
	reader.ReadString('\n')
	conn.Write([]byte(then))
	conn.(*net.TCPConn).CloseWrite()
	rest, _ := io.ReadAll(reader)
	fmt.Printf("%s: then %d bytes back\n", label, len(rest))
}

// A TLS client through a tunnel to `target` asking for no server name at all.
func noServerName(target string) {
	conn := dial()
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	reader := bufio.NewReader(conn)
	status, _ := reader.ReadString('\n')
	reader.ReadString('\n')
	if !strings.Contains(status, " 200 ") {
		fmt.Println("no-sni: CONNECT refused:", strings.TrimSpace(status))
		return
	}
	client := tls.Client(conn, &tls.Config{InsecureSkipVerify: true})  // no ServerName: no SNI
	if err := client.Handshake(); err != nil {
		fmt.Println("no-sni: handshake failed")
		return
	}
	fmt.Println("no-sni: HANDSHAKE DONE")
}

func main() {
	raw("nul-connect", "CONNECT )" + unlisted + R"(\x00.googleapis.com:)" + internet_port + R"( HTTP/1.1\r\n\r\n", "")
	raw("nul-uri", "GET http://)" + unlisted + R"(\x00.googleapis.com:)" + storage_port + R"(/storage/v1/b HTTP/1.1\r\nHost: x\r\n\r\n", "")
	raw("pct-uri", "GET http://)" + unlisted + R"(%00.googleapis.com:)" + storage_port + R"(/storage/v1/b HTTP/1.1\r\nHost: x\r\n\r\n", "")
	noServerName(")" + storage_tls + R"(")
	// A record header promising 512 bytes of hello, then the end of the stream.
	raw("truncated", "CONNECT )" + storage_tls + R"( HTTP/1.1\r\n\r\n", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
	// Plain HTTP for another site through a tunnel to a listed name (fronting without TLS).
	raw("plain", "CONNECT )" + std::string(kStorageHost) + ":" + storage_port + R"( HTTP/1.1\r\n\r\n",
		"GET /storage/v1/b?project=p HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n")
}
)";
  const auto result = execute_once(daemon, program);
  const std::string out = string_member(result, "stdout");
  const auto warnings = warnings_of(result);
  INFO("stdout:\n" << out << "stderr:\n" << string_member(result, "stderr") << "warnings:\n"
                   << joined(warnings));
  REQUIRE(string_member(result, "status") == "ok");
  // The NUL forms: 403, reported with the host shown escaped; nothing reached the peer.
  CHECK(out.find("nul-connect: HTTP/1.1 403 Forbidden") != std::string::npos);
  CHECK(out.find("nul-uri: HTTP/1.1 403 Forbidden") != std::string::npos);
  CHECK(out.find("pct-uri: HTTP/1.1 403 Forbidden") != std::string::npos);
  CHECK(has_warning(warnings, "egress refused CONNECT " + unlisted + "\\x00.googleapis.com:" +
                                  internet_port + ": \"" + unlisted +
                                  "\\x00.googleapis.com\" is not a host name: it contains a NUL "
                                  "byte"));
  CHECK(has_warning(warnings, "egress refused http://" + unlisted + "\\x00.googleapis.com:" +
                                  storage_port + ": \"" + unlisted +
                                  "\\x00.googleapis.com\" is not a host name: it contains a NUL "
                                  "byte"));
  CHECK(has_warning(warnings, "egress refused http://" + unlisted + "%00.googleapis.com:" +
                                  storage_port));
  CHECK(sandbox::testing::TestNetwork::drain(world().internet_fd, 200ms).empty());
  // Tunnels to a name that do not ask TLS for it are cut before a byte goes upstream.
  CHECK(out.find("no-sni: handshake failed") != std::string::npos);
  CHECK(has_warning(warnings, "egress refused CONNECT " + storage_tls +
                                  ": its TLS ClientHello names no server; a tunnel to " +
                                  kStorageHost + " must ask for " + kStorageHost));
  CHECK(out.find("truncated: then 0 bytes back") != std::string::npos);
  CHECK(has_warning(warnings, "egress refused CONNECT " + storage_tls +
                                  ": the tunnel closed before a complete TLS ClientHello"));
  CHECK(out.find("plain: then 0 bytes back") != std::string::npos);
  CHECK(has_warning(warnings, std::string("egress refused CONNECT ") + kStorageHost + ":" +
                                  storage_port + ": the tunnel does not start with a TLS "
                                  "ClientHello"));
}

}  // namespace kg::test::egress
