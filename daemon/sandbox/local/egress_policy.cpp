#include "egress_policy.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

IpPrefix host_prefix(const sockaddr* address) {
  IpPrefix prefix;
  prefix.family = address->sa_family;
  char text[INET6_ADDRSTRLEN] = {};
  if (prefix.family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in*>(address)->sin_addr;
    std::memcpy(prefix.bytes.data(), &in, 4);
    prefix.length = 32;
    ::inet_ntop(AF_INET, &in, text, sizeof text);
  } else {
    const auto& in6 = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    std::memcpy(prefix.bytes.data(), &in6, 16);
    prefix.length = 128;
    ::inet_ntop(AF_INET6, &in6, text, sizeof text);
  }
  prefix.text = std::string(text) + "/" + std::to_string(prefix.length);
  return prefix;
}

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

IpPrefix IpPrefix::parse(std::string_view text) {
  IpPrefix prefix;
  prefix.text = std::string(text);
  const auto slash = text.find('/');
  const std::string address(text.substr(0, slash));
  if (::inet_pton(AF_INET, address.c_str(), prefix.bytes.data()) == 1) {
    prefix.family = AF_INET;
    prefix.length = 32;
  } else if (::inet_pton(AF_INET6, address.c_str(), prefix.bytes.data()) == 1) {
    prefix.family = AF_INET6;
    prefix.length = 128;
  } else {
    throw std::invalid_argument("Not an IP address or network: " + prefix.text);
  }
  if (slash != std::string_view::npos) {
    const auto digits = text.substr(slash + 1);
    const int maximum = prefix.length;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), prefix.length);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
        prefix.length < 0 || prefix.length > maximum) {
      throw std::invalid_argument("Not a prefix length in " + prefix.text + " (0 to " +
                                  std::to_string(maximum) + ")");
    }
  }
  return prefix;
}

bool IpPrefix::operator==(const IpPrefix& other) const {
  return family == other.family && length == other.length && bytes == other.bytes;
}

std::vector<RouteRule> egress_route_rules(const std::vector<IpPrefix>& host_addresses) {
  std::vector<RouteRule> rules = {dns_rule(IPPROTO_UDP), dns_rule(IPPROTO_TCP)};
  for (const auto& refused : kRefusedDestinations) {
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

std::vector<IpPrefix> host_interface_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    throw std::runtime_error(std::string("Cannot list the host's network addresses: ") +
                             std::strerror(errno));
  }
  std::vector<IpPrefix> addresses;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr) continue;
    const int family = entry->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    auto prefix = host_prefix(entry->ifa_addr);
    if (std::find(addresses.begin(), addresses.end(), prefix) == addresses.end()) {
      addresses.push_back(std::move(prefix));
    }
  }
  ::freeifaddrs(list);
  return addresses;
}

}  // namespace kg::sandbox
