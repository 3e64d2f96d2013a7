#include "egress_policy.hpp"

#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

bool is_loopback(const IpPrefix& prefix) {
  if (prefix.family == AF_INET) return prefix.bytes[0] == 127;
  static const std::array<std::uint8_t, 16> kLoopback6 = {0, 0, 0, 0, 0, 0, 0, 0,
                                                          0, 0, 0, 0, 0, 0, 0, 1};
  return prefix.bytes == kLoopback6;
}

RouteRule dns_rule(int protocol) {
  return {.action = RouteRule::Action::allow,
          .destination = IpPrefix::parse(std::string(kEgressDnsAddress) + "/32"),
          .ip_protocol = protocol,
          .port = 53,
          .reason = std::string("slirp4netns's DNS forwarder (") +
                    (protocol == IPPROTO_UDP ? "udp" : "tcp") + " port 53 only)"};
}

}  // namespace

std::vector<RouteRule> egress_route_rules(const std::vector<IpPrefix>& host_addresses) {
  std::vector<RouteRule> rules = {dns_rule(IPPROTO_UDP), dns_rule(IPPROTO_TCP)};
  for (const auto& refused : net::kLocalNetworkRanges) {
    rules.push_back({.action = RouteRule::Action::refuse,
                     .destination = IpPrefix::parse(refused.prefix),
                     .reason = refused.reason});
  }
  for (const auto& address : host_addresses) {
    if (is_loopback(address)) continue;
    const bool listed = std::any_of(rules.begin(), rules.end(), [&](const RouteRule& rule) {
      return rule.action == RouteRule::Action::refuse && rule.destination == address;
    });
    if (listed) continue;
    rules.push_back({.action = RouteRule::Action::refuse,
                     .destination = address,
                     .reason = "an address of the host itself (slirp4netns connects from there)"});
  }
  return rules;
}

RouteRule gateway_rule_while_configuring() {
  return {.action = RouteRule::Action::allow,
          .destination = IpPrefix::parse(std::string(kEgressGatewayAddress) + "/32"),
          .reason = "slirp4netns's gateway, while it adds its default route"};
}

}  // namespace kg::sandbox
