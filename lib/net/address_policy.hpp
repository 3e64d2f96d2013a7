// Which IP addresses are the public internet, and why the others are not: loopback, private,
// shared, link-local, multicast, reserved, cloud metadata. One policy, in one place, for every
// part that must not be steered at the machine or its network by a name from outside: the
// local sandboxes' egress proxy and egress network (daemon/sandbox/local/egress_allowlist.hpp,
// egress_policy.hpp; docs/egress.md), team mode's check of a Client ID Metadata Document's host
// (docs/team-oauth.md), and HttpsClient's plain-http-to-loopback rule (https_client.hpp).
// Pure data and pure functions; thread-safe.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::net {

// An IPv4 or IPv6 network, e.g. 10.0.0.0/8 or fe80::/10.
struct IpPrefix {
  int family = 0;                        // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};  // network byte order; IPv4 uses the first 4
  int length = 0;                        // prefix length in bits
  std::string text;                      // as written, for messages

  // Throws std::invalid_argument naming the text when it is not an address[/length].
  static IpPrefix parse(std::string_view text);
  // The one address (/32 or /128) of an AF_INET or AF_INET6 socket address.
  static IpPrefix of_address(const sockaddr* address);
  bool operator==(const IpPrefix& other) const;
  // Whether the address `address_bytes` of `address_family` is inside this network.
  bool contains(const std::array<std::uint8_t, 16>& address_bytes, int address_family) const;
};

struct AddressRange {
  const char* prefix;
  const char* reason;
};

// Networks that are some local network's or a cloud platform's, never the internet; they route
// through a network namespace like any destination (EgressNetwork refuses them by route rule).
inline constexpr AddressRange kLocalNetworkRanges[] = {
    {"0.0.0.0/8", "this host on this network"},
    {"10.0.0.0/8", "private network (RFC 1918)"},
    {"100.64.0.0/10", "carrier-grade NAT space (Alibaba Cloud metadata: 100.100.100.200)"},
    {"169.254.0.0/16", "link-local (cloud metadata servers: 169.254.169.254)"},
    {"172.16.0.0/12", "private network (RFC 1918)"},
    {"192.0.0.0/24", "IETF protocol assignments (Oracle Cloud metadata: 192.0.0.192)"},
    {"192.168.0.0/16", "private network (RFC 1918)"},
    {"198.18.0.0/15", "benchmarking networks, often used inside data centres"},
    {"168.63.129.16/32", "Azure WireServer (host-only platform endpoint)"},
    {"fc00::/7", "unique local IPv6 (AWS metadata: fd00:ec2::254)"},
    {"fe80::/10", "link-local IPv6"},
};

// Addresses that are the machine's own or no one's. Inside a sandbox's namespace loopback is the
// sandbox's own, so only a connection made on the host (the egress proxy, team mode) refuses them.
inline constexpr AddressRange kMachineOnlyRanges[] = {
    {"127.0.0.0/8", "loopback (the host's own services)"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved (and broadcast)"},
    {"::/128", "unspecified"},
    {"::1/128", "loopback (the host's own services)"},
    {"ff00::/8", "multicast"},  // one range a line, like kLocalNetworkRanges
};

// Why `address` (AF_INET/AF_INET6) is not a public one: in kLocalNetworkRanges or
// kMachineOnlyRanges ("<reason> (<range>)"), or one of `host_addresses` (the machine's own
// interfaces); IPv4 embedded in IPv6 (mapped, NAT64, 6to4, compatible) is judged as IPv4.
// nullopt: a public address.
std::optional<std::string> why_not_public(const sockaddr* address,
                                          const std::vector<IpPrefix>& host_addresses);

// "localhost", or a literal loopback address (127.0.0.0/8, [::1]); a name that merely starts
// like one ("127.0.0.1.evil.example") or a short form ("127.1") is not.
bool is_loopback_host(const std::string& host);

}  // namespace kg::net
