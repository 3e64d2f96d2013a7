// The address policy (lib/net/address_policy.hpp) every outbound check shares: networks parse,
// and only public addresses pass, IPv4 hidden in IPv6 included; "loopback" is a literal
// loopback address or localhost, never a name that merely starts like one.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "address_policy.hpp"

namespace kg::net {
namespace {

std::optional<std::string> refused(const std::string& text, std::vector<IpPrefix> host = {}) {
  sockaddr_storage storage{};
  if (text.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1);
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    REQUIRE(::inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1);
  }
  return why_not_public(reinterpret_cast<const sockaddr*>(&storage), host);
}

TEST_CASE("prefixes parse with their family and length, and bad ones are named") {
  const auto network = IpPrefix::parse("172.16.0.0/12");
  CHECK(network.family == AF_INET);
  CHECK(network.length == 12);
  CHECK(network.bytes[0] == 172);
  CHECK(network.bytes[1] == 16);
  CHECK(IpPrefix::parse("fe80::/10").family == AF_INET6);
  CHECK(IpPrefix::parse("192.0.2.7").length == 32);
  CHECK(IpPrefix::parse("::1").length == 128);
  CHECK_THROWS_WITH(IpPrefix::parse("10.0.0.0/33"), "Not a prefix length in 10.0.0.0/33 (0 to 32)");
  CHECK_THROWS_WITH(IpPrefix::parse("10.0.0/8"), "Not an IP address or network: 10.0.0/8");
  CHECK_THROWS_AS(IpPrefix::parse("10.0.0.0/"), std::invalid_argument);
}

TEST_CASE(
    "address policy: loopback, private, shared, link-local, multicast, metadata and host addresses "
    "are refused") {
  for (const auto* address :
       {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1",
        "100.100.100.200", "169.254.169.254", "192.0.0.192", "168.63.129.16", "0.0.0.0",
        "224.0.0.1", "239.255.255.250", "255.255.255.255", "198.18.0.1", "::1", "::", "fe80::1",
        "fd00:ec2::254", "ff02::1",
        // IPv4 inside IPv6: mapped, NAT64, 6to4, compatible.
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a01:203", "2002:a9fe:a9fe::1",
        "::10.1.2.3"}) {
    CAPTURE(address);
    CHECK(refused(address).has_value());
  }
  CHECK(refused("169.254.169.254").value() ==
        "link-local (cloud metadata servers: 169.254.169.254) (169.254.0.0/16)");
  CHECK(refused("127.0.0.1").value() == "loopback (the host's own services) (127.0.0.0/8)");
  CHECK(refused("203.0.113.7", {IpPrefix::parse("203.0.113.7/32")}).value() ==
        "an address of the host itself (203.0.113.7/32)");
  // Public addresses pass: Google's, Private Google Access VIPs, documentation ranges.
  for (const auto* address : {"142.250.74.110", "199.36.153.8", "199.36.153.4", "198.51.100.1",
                              "2607:f8b0:4004:c07::5f", "::ffff:142.250.74.110"}) {
    CAPTURE(address);
    CHECK_FALSE(refused(address).has_value());
  }
}

TEST_CASE("address policy: an address family that is not IP is refused") {
  sockaddr_storage storage{};
  storage.ss_family = AF_UNIX;
  CHECK(why_not_public(reinterpret_cast<const sockaddr*>(&storage), {}).value() ==
        "not an IP address");
}

TEST_CASE("address policy: of_address gives the socket address's one address as a prefix") {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  REQUIRE(::inet_pton(AF_INET, "192.0.2.9", &v4.sin_addr) == 1);
  const auto prefix = IpPrefix::of_address(reinterpret_cast<const sockaddr*>(&v4));
  CHECK(prefix == IpPrefix::parse("192.0.2.9/32"));
  CHECK(prefix.text == "192.0.2.9/32");
  CHECK(IpPrefix::parse("192.0.2.0/24").contains(prefix.bytes, AF_INET));
  CHECK_FALSE(IpPrefix::parse("192.0.3.0/24").contains(prefix.bytes, AF_INET));
  CHECK_FALSE(IpPrefix::parse("::/0").contains(prefix.bytes, AF_INET));
}

TEST_CASE("loopback means a loopback address or localhost, not a name that starts like one") {
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.1.2.3"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("[::1]"));
  CHECK(is_loopback_host("localhost"));
  CHECK_FALSE(is_loopback_host("127.0.0.1.evil.example"));
  CHECK_FALSE(is_loopback_host("10.0.0.1"));
  CHECK_FALSE(is_loopback_host("localhost.evil.example"));
  CHECK_FALSE(is_loopback_host(std::string("127.0.0.1\0.evil.example", 22)));
  CHECK_FALSE(is_loopback_host("127.1"));
}

}  // namespace
}  // namespace kg::net
