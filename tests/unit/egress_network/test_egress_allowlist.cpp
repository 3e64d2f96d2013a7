// The allowlist's policy as data (egress_allowlist.hpp) and the proxy's reading of a request
// head (egress_proxy_request.hpp): what is admitted by name, and how each malformed request is
// answered. The proxy end to end is in tests/hostile
// (test_hostile_egress.cpp).
#include <arpa/inet.h>
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "egress_allowlist.hpp"
#include "egress_http1_relay.hpp"
#include "egress_proxy_request.hpp"
#include "egress_tunnel_check.hpp"
#include "tls_client_hello.hpp"

namespace kg::sandbox {
namespace {

EgressAllowlist google() {
  return EgressAllowlist::parse({"*.googleapis.com", "accounts.google.com", "199.36.153.8"}, {443});
}

net::Host host(std::string_view text) { return net::Host::parse(text); }

}  // namespace

TEST_CASE("allowlist: a refusal names the rule it broke, as /metrics counts it") {
  const auto list = google();
  CHECK_FALSE(list.refusal(host("storage.googleapis.com"), 443));
  const auto port = list.refusal(host("storage.googleapis.com"), 22);
  REQUIRE(port);
  CHECK(port->kind == EgressRefusalKind::port_not_allowed);
  CHECK(egress_refusal_label(port->kind) == "port_not_allowed");
  const auto literal = list.refusal(host("198.51.100.1"), 443);
  REQUIRE(literal);
  CHECK(egress_refusal_label(literal->kind) == "ip_literal");
  const auto name = list.refusal(host("www.example.com"), 443);
  REQUIRE(name);
  CHECK(egress_refusal_label(name->kind) == "host_not_allowed");
  // The labels carry no host: the message does.
  CHECK(name->reason.find("www.example.com") != std::string::npos);
  CHECK(list.refuse(host("www.example.com"), 443) == name->reason);
}

TEST_CASE("allowlist: exact names and *.suffix patterns, on listed ports") {
  const auto list = google();
  CHECK_FALSE(list.refuse(host("storage.googleapis.com"), 443));
  CHECK_FALSE(list.refuse(host("oauth2.googleapis.com"), 443));
  CHECK_FALSE(list.refuse(host("a.b.googleapis.com"), 443));
  CHECK_FALSE(list.refuse(host("accounts.google.com"), 443));
  // The suffix itself and look-alikes are not under it.
  CHECK(list.refuse(host("googleapis.com"), 443));
  CHECK(list.refuse(host("evilgoogleapis.com"), 443));
  CHECK(list.refuse(host("googleapis.com.evil.example"), 443));
  CHECK(list.refuse(host("www.google.com"), 443).value() ==
        "www.google.com is not in [sandbox] allowed_hosts (*.googleapis.com, accounts.google.com, "
        "199.36.153.8)");
  CHECK(list.refuse(host("storage.googleapis.com"), 80).value() ==
        "port 80 is not in [sandbox] allowed_ports (443)");
}

TEST_CASE("allowlist: IP literals only when listed exactly, never through a pattern or short form") {
  const auto list = google();
  CHECK_FALSE(list.refuse(host("199.36.153.8"), 443));
  CHECK(list.refuse(host("199.36.153.9"), 443).value().starts_with("IP address literals are refused"));
  CHECK(list.refuse(host("::1"), 443));
  // Short forms are not hosts at all: the request is refused before the allowlist is asked.
  for (const auto* shorthand : {"127.1", "2130706433", "0x7f.1", "0177.0.0.1"}) {
    CAPTURE(shorthand);
    CHECK_THROWS_AS(host(shorthand), net::InvalidHost);
  }
  // A pattern never admits a literal, even one that "ends with" the suffix.
  const auto numeric = EgressAllowlist::parse({"*.example"}, {443});
  CHECK(numeric.refuse(host("10.0.0.1"), 443));
}

TEST_CASE("allowlist: names are compared lowercase without a trailing dot or brackets") {
  CHECK_FALSE(google().refuse(host("STORAGE.googleapis.com."), 443));
  CHECK_FALSE(EgressAllowlist::parse({"2001:DB8::1"}, {443}).refuse(host("[2001:db8::1]"), 443));
}

TEST_CASE("allowlist: malformed entries are refused when the proxy is made") {
  CHECK_THROWS_WITH(EgressAllowlist::parse({"*"}, {443}),
                    "\"*\" is not a host pattern: '*' is only allowed as a leading \"*.\"");
  CHECK_THROWS_WITH(EgressAllowlist::parse({"a.*.com"}, {443}),
                    "\"a.*.com\" is not a host pattern: '*' is only allowed as a leading \"*.\"");
  CHECK_THROWS_WITH(EgressAllowlist::parse({"x.com"}, {0}), "0 is not a port (1 to 65535)");
}

// Which resolved addresses the proxy refuses is lib/net's address policy
// (tests/unit/net/test_address_policy.cpp).

TEST_CASE("proxy request: CONNECT host:port, [v6]:port") {
  const auto tunnel = parse_proxy_request("CONNECT Storage.GoogleAPIs.com:443 HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(tunnel.tunnel);
  CHECK(tunnel.host.text() == "storage.googleapis.com");
  CHECK(tunnel.port == 443);
  const auto v6 = parse_proxy_request("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n");
  CHECK(v6.host.text() == "2001:db8::1");
  CHECK(v6.port == 8443);
}

TEST_CASE("proxy request: an absolute URI is rewritten to origin form with Connection: close") {
  const auto request = parse_proxy_request(
      "GET http://gcs.example:4443/storage/v1/b?project=p HTTP/1.1\r\nHost: gcs.example:4443\r\n"
      "Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n");
  CHECK_FALSE(request.tunnel);
  CHECK(request.host.text() == "gcs.example");
  CHECK(request.port == 4443);
  const auto& head = request.upstream_head;
  CHECK(head.starts_with("GET /storage/v1/b?project=p HTTP/1.1\r\n"));
  CHECK(head.find("Proxy-Authorization") == std::string::npos);
  CHECK(head.find("Proxy-Connection") == std::string::npos);
  CHECK(head.find("Connection: close\r\n") != std::string::npos);
  CHECK(head.find("Host: gcs.example:4443\r\n") != std::string::npos);
  CHECK(head.find("Accept: */*\r\n") != std::string::npos);
  CHECK(head.ends_with("\r\n\r\n"));
  CHECK(parse_proxy_request("GET http://gcs.example HTTP/1.1\r\n\r\n").port == 80);
}

TEST_CASE("proxy request: malformed requests are answered with a status that says why") {
  const auto status_of = [](const std::string& head) {
    try {
      parse_proxy_request(head);
    } catch (const ProxyRequestError& e) {
      return e.status();
    }
    return 0;
  };
  CHECK(status_of("CONNECT storage.googleapis.com HTTP/1.1\r\n\r\n") == 400);      // no port
  CHECK(status_of("CONNECT storage.googleapis.com:0 HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("CONNECT storage.googleapis.com:99999 HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("CONNECT :443 HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("CONNECT [::1 HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("GET https://storage.googleapis.com/ HTTP/1.1\r\n\r\n") == 400);  // use CONNECT
  CHECK(status_of("GET /storage/v1/b HTTP/1.1\r\nHost: x\r\n\r\n") == 400);         // origin form
  CHECK(status_of("OPTIONS * HTTP/1.1\r\n\r\n") == 405);
  CHECK(status_of("\x16\x03\x01\x02\x00\r\n\r\n") == 400);                             // TLS, not HTTP
}

TEST_CASE("proxy request: a target that is not a host is refused as policy, shown escaped") {
  const auto refusal_of = [](const std::string& head) -> std::string {
    try {
      parse_proxy_request(head);
    } catch (const ProxyTargetRefused& e) {
      CHECK(e.status() == 403);
      return e.target() + ": " + e.what();
    }
    return "";
  };
  using namespace std::string_literals;
  CHECK(refusal_of("CONNECT attacker.example\0.googleapis.com:443 HTTP/1.1\r\n\r\n"s) ==
        "CONNECT attacker.example\\x00.googleapis.com:443: \"attacker.example\\x00.googleapis.com\" "
        "is not a host name: it contains a NUL byte");
  // Percent-encoded (whether or not the URI reader decodes it): never a name.
  CHECK(refusal_of("GET http://attacker.example%00.googleapis.com/ HTTP/1.1\r\n\r\n")
            .find("is not a host name: it contains ") != std::string::npos);
  CHECK(refusal_of("GET http://attacker.example\0.googleapis.com/ HTTP/1.1\r\n\r\n"s)
            .ends_with("is not a host name: it contains a NUL byte"));
  CHECK(refusal_of("CONNECT 127.1:443 HTTP/1.1\r\n\r\n") ==
        "CONNECT 127.1:443: \"127.1\" is not a host name: it is an IPv4 address in a form only "
        "resolvers read");
  CHECK(refusal_of("CONNECT a_b.googleapis.com:443 HTTP/1.1\r\n\r\n").find("'_'") !=
        std::string::npos);
  CHECK(refusal_of("CONNECT b\xc3\xbc" "cher.googleapis.com:443 HTTP/1.1\r\n\r\n").find("non-ASCII") !=
        std::string::npos);
}

}  // namespace kg::sandbox

namespace kg::sandbox {
namespace {

std::string be(std::size_t value, int width) {
  std::string bytes;
  for (int i = width - 1; i >= 0; --i) bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return bytes;
}

// A ClientHello record, with a server_name extension when `name` is not empty, after another
// extension (so the parser must skip one), and an ALPN extension offering `alpn` when not empty.
std::string client_hello(const std::string& name, const std::vector<std::string>& alpn = {}) {
  std::string extensions = be(0x000a, 2) + be(4, 2) + be(2, 2) + be(0x001d, 2);  // groups: x25519
  if (!name.empty()) {
    const std::string entry = be(0, 1) + be(name.size(), 2) + name;
    const std::string list = be(entry.size(), 2) + entry;
    extensions += be(0, 2) + be(list.size(), 2) + list;
  }
  if (!alpn.empty()) {
    std::string protocols;
    for (const auto& protocol : alpn) protocols += be(protocol.size(), 1) + protocol;
    const std::string list = be(protocols.size(), 2) + protocols;
    extensions += be(16, 2) + be(list.size(), 2) + list;
  }
  const std::string hello = be(0x0303, 2) + std::string(32, 'r') + be(0, 1) +
                            be(2, 2) + be(0x1301, 2) + be(1, 1) + be(0, 1) +
                            be(extensions.size(), 2) + extensions;
  const std::string handshake = be(1, 1) + be(hello.size(), 3) + hello;
  return be(22, 1) + be(0x0301, 2) + be(handshake.size(), 2) + handshake;
}

}  // namespace

TEST_CASE("TLS ClientHello: the server name a tunnel's client asks for") {
  const auto record = client_hello("Storage.GoogleAPIs.com");
  CHECK(starts_tls_handshake(record));
  CHECK(tls_record_size(record) == record.size());
  CHECK(tls_record_size(record.substr(0, 4)) == 0);
  CHECK(tls_server_name(record).value() == "Storage.GoogleAPIs.com");  // validated by the caller
  CHECK_FALSE(tls_server_name(client_hello("")).has_value());
  CHECK_FALSE(starts_tls_handshake("GET / HTTP/1.1\r\n"));
  CHECK_THROWS_AS(tls_server_name(record.substr(0, record.size() - 3)), std::invalid_argument);
  std::string not_hello = record;
  not_hello[5] = 2;  // a ServerHello
  CHECK_THROWS_AS(tls_server_name(not_hello), std::invalid_argument);
}

TEST_CASE("TLS ClientHello: anything but one well-formed hello is refused") {
  const auto record = client_hello("a.example");
  const auto refused_with = [](const std::string& bytes) -> std::string {
    try {
      tls_server_name(bytes);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(refused_with(record + "x") == "bytes after the first TLS record");
  // Two server_name extensions: a reader taking the first and a server the last would differ.
  std::string twice = client_hello("a.example");
  const std::string sni = be(0, 2) + be(14, 2) + be(12, 2) + be(0, 1) + be(9, 2) + "b.example";
  twice += sni;
  // Grow the record, handshake, hello and extensions lengths by the extension's size.
  const auto grow = [&](std::size_t at, int width) {
    std::size_t value = 0;
    for (int i = 0; i < width; ++i) value = (value << 8) | static_cast<unsigned char>(twice[at + i]);
    twice.replace(at, width, be(value + sni.size(), width));
  };
  grow(3, 2);
  grow(6, 3);
  grow(5 + 4 + 2 + 32 + 1 + 2 + 2 + 1 + 1, 2);
  CHECK(refused_with(twice) == "a repeated TLS extension");
  std::string other_type = record;
  other_type[other_type.find("a.example") - 3] = 1;  // name_type 1, not host_name
  CHECK(refused_with(other_type) == "a server name that is not a host_name");
  std::string version = record;
  version[1] = 2;
  CHECK(refused_with(version) == "not a TLS record version");
  CHECK(refused_with(record.substr(0, 20)) == "truncated TLS ClientHello");
}

TEST_CASE("relayed HTTP/1.1 target: a path, or an absolute URI for the admitted host only") {
  const std::string storage = "storage.googleapis.com";
  const auto path = read_relayed_target("/storage/v1/b?project=p", storage, 443);
  CHECK_FALSE(path.problem);
  CHECK(path.path == "/storage/v1/b?project=p");
  // Absolute-form for the admitted host, with or without the port, any case: read as its path.
  CHECK(read_relayed_target("https://storage.googleapis.com/storage/v1/b/b1", storage, 443).path ==
        "/storage/v1/b/b1");
  CHECK(read_relayed_target("HTTPS://Storage.GoogleAPIs.com:443?x=1", storage, 443).path == "/?x=1");
  CHECK_FALSE(read_relayed_target("http://storage.googleapis.com", storage, 443).problem);
  // Another authority is refused like a mismatched Host, however it is dressed.
  for (const char* target : {"https://other.example/storage/v1/b", "https://storage.googleapis.com:8443/",
                             "https://user@storage.googleapis.com/", "https://storage.googleapis.com.evil/x"}) {
    INFO(target);
    const auto other = read_relayed_target(target, storage, 443);
    REQUIRE(other.problem);
    CHECK(other.problem->find("names another authority than storage.googleapis.com") != std::string::npos);
  }
  CHECK(read_relayed_target("*", storage, 443).problem ==
        std::optional<std::string>("the request target * is neither a path nor an absolute URI"));
  CHECK(read_relayed_target("storage.googleapis.com:443", storage, 443).problem);
}

TEST_CASE("tunnel plan: a Google API host is terminated or refused, never relayed unread") {
  const auto storage = host("storage.googleapis.com");
  const auto plan = [&](const std::string& hello, const net::Host& to, bool terminating = true) {
    return plan_tunnel(hello, to, terminating);
  };
  // h2 or http/1.1 among the offers, or no ALPN at all (HTTP/1.1): terminated.
  CHECK(plan(client_hello("storage.googleapis.com"), storage).terminate);
  CHECK(plan(client_hello("storage.googleapis.com", {"foo", "h2"}), storage).terminate);
  CHECK(plan(client_hello("storage.googleapis.com", {"http/1.1"}), storage).terminate);
  // ALPN offered, neither protocol among it: refused with no_application_protocol, not relayed.
  const auto foo = plan(client_hello("storage.googleapis.com", {"foo", "h3"}), storage);
  CHECK_FALSE(foo.terminate);
  REQUIRE(foo.refusal);
  CHECK(foo.refusal->kind == EgressRefusalKind::tls_hello);
  CHECK(foo.refusal->reason.find(R"(offers only the application protocols (ALPN) "foo", "h3")") !=
        std::string::npos);
  CHECK(foo.alert == 120);
  // Without TLS termination (no EgressTls) every tunnel is relayed as before.
  const auto blind = plan(client_hello("storage.googleapis.com", {"foo"}), storage, false);
  CHECK_FALSE(blind.terminate);
  CHECK_FALSE(blind.refusal);
  // Other names are relayed, whatever they offer.
  const auto other = plan(client_hello("a.example", {"foo"}), host("a.example"));
  CHECK_FALSE(other.terminate);
  CHECK_FALSE(other.refusal);
  CHECK_FALSE(plan(client_hello("googleapis.com", {"foo"}), host("googleapis.com")).refusal);
}

TEST_CASE("tunnel plan: an IP literal tunnel asking for a Google API host is refused") {
  const auto address = host("199.36.153.8");
  const auto asked = plan_tunnel(client_hello("Storage.GoogleAPIs.com"), address, true);
  CHECK_FALSE(asked.terminate);
  REQUIRE(asked.refusal);
  CHECK(asked.refusal->reason.find("storage.googleapis.com inside the tunnel to 199.36.153.8") !=
        std::string::npos);
  CHECK(asked.alert == 49);
  // Another name, no name, or bytes that are not TLS: relayed as before.
  CHECK_FALSE(plan_tunnel(client_hello("a.example"), address, true).refusal);
  CHECK_FALSE(plan_tunnel(client_hello(""), address, true).refusal);
  CHECK_FALSE(plan_tunnel("SSH-2.0-x\r\n", address, true).refusal);
  const std::string whole = client_hello("storage.googleapis.com");
  CHECK(plan_tunnel(whole.substr(0, whole.size() - 3), address, true).refusal);  // unreadable
  CHECK(tls_fatal_alert(120) == std::string("\x15\x03\x03\x00\x02\x02\x78", 7));
}

}  // namespace kg::sandbox
