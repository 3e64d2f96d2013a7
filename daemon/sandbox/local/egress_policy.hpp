// What a sandbox with [sandbox] network = egress may reach: the internet, and nothing that is
// the host's or the local network's. Pure data and pure functions, so the policy can be read
// (and tested) in one place; NamespaceRouteRules installs it, EgressNetwork decides when.
//
// The policy becomes policy-routing rules inside the sandbox's network namespace, evaluated
// after the namespace's own "local" table (so the sandbox's own loopback and addresses keep
// working) and before its routes (so no route slirp4netns adds can widen it):
//   allow   10.0.2.3 udp/tcp port 53   slirp4netns's DNS forwarder, and only its DNS port:
//                                      older slirp code forwarded *any* port of 10.0.2.3 to
//                                      the host's resolver address, which may be on the
//                                      host's loopback (Debian 12's libslirp 4.7 forwards
//                                      only 53; the rule keeps that true whatever the version)
//   refuse  private, shared, link-local and metadata ranges (net::kLocalNetworkRanges,
//           lib/net/address_policy.hpp)
//   refuse  each address of the host's own interfaces, because slirp4netns connects from the
//           host's network namespace, where those addresses reach the host's own services
// A refused destination fails at once with EACCES ("permission denied"), never a timeout.
#pragma once

#include <string>
#include <vector>

#include "address_policy.hpp"
#include "host_addresses.hpp"

namespace kg::sandbox {

// slirp4netns's fixed virtual network (its defaults, which EgressNetwork does not change).
inline constexpr const char* kEgressGatewayAddress = "10.0.2.2";  // the host's loopback if allowed
inline constexpr const char* kEgressDnsAddress = "10.0.2.3";      // forwards to the host's resolver
inline constexpr const char* kEgressSandboxAddress = "10.0.2.100";

// The address policy's network type (lib/net/address_policy.hpp), which the rules are made of.
using net::IpPrefix;

struct RouteRule {
  enum class Action { allow, refuse };
  Action action = Action::refuse;
  IpPrefix destination;
  int ip_protocol = 0;  // IPPROTO_UDP/IPPROTO_TCP, or 0 for any
  int port = 0;         // destination port, or 0 for any
  std::string reason;   // why the rule exists, for messages and logs
};

// The rules in the order they must be evaluated (allow before refuse). host_addresses are the
// addresses of the host's own interfaces where slirp4netns runs (see host_interface_addresses);
// loopback addresses among them are skipped (inside the sandbox they are its own loopback).
std::vector<RouteRule> egress_route_rules(const std::vector<IpPrefix>& host_addresses);

// Allows slirp4netns's gateway (10.0.2.2, its alias for the host's loopback). Needed only while
// slirp4netns adds its default route, because the kernel checks a route's gateway against the
// rules; EgressNetwork removes it as soon as the network is up.
RouteRule gateway_rule_while_configuring();

}  // namespace kg::sandbox
