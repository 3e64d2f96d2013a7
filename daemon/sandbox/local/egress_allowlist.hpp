// What a sandbox with [sandbox] network = allowlist may reach through the daemon's egress proxy
// (docs/contracts.md §8): host names matching allowed_hosts, on a port of allowed_ports, and only
// when every address the name resolves to is a public one. Pure data and pure functions, so the
// policy reads (and is tested) in one place; EgressProxy applies it to each connection.
#pragma once

#include <netinet/in.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egress_policy.hpp"

namespace kg::sandbox {

struct EgressAllowlist {
  // Exact names ("storage.googleapis.com"), "*.suffix" patterns (any name ending in ".suffix",
  // not the suffix itself) and IP literals (admitted only when listed exactly).
  // (Defaults live in the configuration: [sandbox] allowed_hosts, allowed_ports.)
  std::vector<std::string> hosts;
  std::vector<int> ports;

  // Throws std::invalid_argument naming the entry when a host pattern or port is malformed
  // (empty, a '*' anywhere but a leading "*.", a port outside 1..65535).
  void validate() const;
  // Why `host` (lowercase, no trailing dot) on `port` is refused, or nullopt when admitted by
  // name. The addresses it resolves to are checked separately (refused_address).
  std::optional<std::string> refuse_name(std::string_view host, int port) const;
};

// Lowercases a requested host and drops one trailing dot ("Example.COM." → "example.com");
// strips the brackets of an IPv6 literal.
std::string normalize_host(std::string_view host);

// Whether `host` is an IPv4 or IPv6 literal (including the forms inet_aton accepts, such as
// "127.1" or "2130706433", which resolvers turn into addresses without asking DNS).
bool is_ip_literal(std::string_view host);

// Why connecting to `address` (AF_INET/AF_INET6) is refused: loopback, private, shared,
// link-local, multicast, reserved, unspecified, a cloud metadata address, or one of the host's
// own (host_addresses); IPv4 embedded in IPv6 (mapped, NAT64, 6to4) is judged as IPv4. nullopt:
// a public address.
std::optional<std::string> refused_address(const sockaddr* address,
                                           const std::vector<IpPrefix>& host_addresses);

}  // namespace kg::sandbox
