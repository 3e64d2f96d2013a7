// What a sandbox with [sandbox] network = allowlist may reach through the daemon's egress proxy
// (docs/egress.md): host names matching allowed_hosts, on a port of allowed_ports, and only
// when every address the name resolves to is a public one. Pure data and pure functions, so the
// policy reads (and is tested) in one place; EgressProxy applies it to each connection.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egress_call.hpp"
#include "host_pattern.hpp"

namespace kg::sandbox {

// A policy refusal: the proxy answers 403 (when it still can), logs and records it, counted
// under `kind`.
struct EgressRefusal {
  std::string reason;
  EgressRefusalKind kind = EgressRefusalKind::tls_hello;
};

struct EgressAllowlist {
  // Exact names ("storage.googleapis.com"), "*.suffix" patterns (any name below the suffix, not
  // the suffix itself) and IP literals (admitted only when listed exactly), net::HostPattern.
  // (Defaults live in the configuration: [sandbox] allowed_hosts, allowed_ports.)
  std::vector<net::HostPattern> hosts;
  std::vector<int> ports;

  // From the configuration's text. Throws std::invalid_argument naming the entry when a host
  // pattern (net::InvalidHost says why) or a port (outside 1..65535) is malformed.
  static EgressAllowlist parse(const std::vector<std::string>& hosts, const std::vector<int>& ports);
  // Why `host` on `port` is refused, or nullopt when admitted by name. The addresses it resolves
  // to are checked separately (net::why_not_public, lib/net/address_policy.hpp).
  std::optional<std::string> refuse(const net::Host& host, int port) const;
  // The same, with the rule that refused it (port, IP literal or host name).
  std::optional<EgressRefusal> refusal(const net::Host& host, int port) const;
};

}  // namespace kg::sandbox
