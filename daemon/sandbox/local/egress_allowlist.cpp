#include "egress_allowlist.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

// Beyond kRefusedDestinations (which the egress network mode shares): what only a proxy on the
// host must also refuse, since its own loopback and multicast are real there.
struct Range {
  const char* prefix;
  const char* reason;
};
constexpr Range kProxyOnlyRefusals[] = {
    {"127.0.0.0/8", "loopback (the host's own services)"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved (and broadcast)"},
    {"::/128", "unspecified"},
    {"::1/128", "loopback (the host's own services)"},
    {"ff00::/8", "multicast"},
};

bool in_prefix(const std::array<std::uint8_t, 16>& bytes, int family, const IpPrefix& prefix) {
  if (family != prefix.family) return false;
  const int full = prefix.length / 8, rest = prefix.length % 8;
  if (!std::equal(bytes.begin(), bytes.begin() + full, prefix.bytes.begin())) return false;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (bytes[full] & mask) == (prefix.bytes[full] & mask);
}

const std::vector<std::pair<IpPrefix, std::string>>& refused_ranges() {
  static const auto ranges = [] {
    std::vector<std::pair<IpPrefix, std::string>> list;
    for (const auto& refused : kRefusedDestinations) {
      list.emplace_back(IpPrefix::parse(refused.prefix), refused.reason);
    }
    for (const auto& refused : kProxyOnlyRefusals) {
      list.emplace_back(IpPrefix::parse(refused.prefix), refused.reason);
    }
    return list;
  }();
  return ranges;
}

// The IPv4 address an IPv6 one carries: ::ffff:a.b.c.d (mapped), 64:ff9b::a.b.c.d (NAT64),
// 2002:AABB:CCDD:: (6to4) and ::a.b.c.d (compatible, deprecated).
std::optional<std::array<std::uint8_t, 16>> embedded_ipv4(const std::array<std::uint8_t, 16>& v6) {
  static const std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const std::uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  static const std::uint8_t kZeros[12] = {};
  std::array<std::uint8_t, 16> v4{};
  if (std::memcmp(v6.data(), kMapped, 12) == 0 || std::memcmp(v6.data(), kNat64, 12) == 0 ||
      (std::memcmp(v6.data(), kZeros, 12) == 0 && (v6[12] | v6[13] | v6[14]) != 0)) {
    std::copy(v6.begin() + 12, v6.end(), v4.begin());
    return v4;
  }
  if (v6[0] == 0x20 && v6[1] == 0x02) {
    std::copy(v6.begin() + 2, v6.begin() + 6, v4.begin());
    return v4;
  }
  return std::nullopt;
}

std::string list_text(const std::vector<net::HostPattern>& patterns) {
  std::string text;
  for (const auto& pattern : patterns) text += (text.empty() ? "" : ", ") + pattern.text();
  return text;
}

}  // namespace

EgressAllowlist EgressAllowlist::parse(const std::vector<std::string>& hosts,
                                       const std::vector<int>& ports) {
  EgressAllowlist allowlist;
  for (const auto& text : hosts) allowlist.hosts.push_back(net::HostPattern::parse(text));
  for (const int port : ports) {
    if (port < 1 || port > 65535) {
      throw std::invalid_argument(std::to_string(port) + " is not a port (1 to 65535)");
    }
  }
  allowlist.ports = ports;
  return allowlist;
}

std::optional<std::string> EgressAllowlist::refuse(const net::Host& host, int port) const {
  if (std::find(ports.begin(), ports.end(), port) == ports.end()) {
    std::string allowed;
    for (const int p : ports) allowed += (allowed.empty() ? "" : ", ") + std::to_string(p);
    return "port " + std::to_string(port) + " is not in [sandbox] allowed_ports (" + allowed + ")";
  }
  for (const auto& pattern : hosts) {
    if (pattern.matches(host)) return std::nullopt;
  }
  if (host.ip() != nullptr) {
    return "IP address literals are refused unless listed in [sandbox] allowed_hosts; ask for "
           "the host by name";
  }
  return host.text() + " is not in [sandbox] allowed_hosts (" + list_text(hosts) + ")";
}

std::optional<std::string> refused_address(const sockaddr* address,
                                           const std::vector<IpPrefix>& host_addresses) {
  std::array<std::uint8_t, 16> bytes{};
  int family = address->sa_family;
  if (family == AF_INET) {
    std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, 4);
  } else if (family == AF_INET6) {
    std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, 16);
    if (const auto v4 = embedded_ipv4(bytes)) {
      bytes = *v4;
      family = AF_INET;
    }
  } else {
    return "not an IP address";
  }
  for (const auto& [prefix, reason] : refused_ranges()) {
    if (in_prefix(bytes, family, prefix)) return reason + " (" + prefix.text + ")";
  }
  for (const auto& own : host_addresses) {
    if (in_prefix(bytes, family, own)) return "an address of the host itself (" + own.text + ")";
  }
  return std::nullopt;
}

}  // namespace kg::sandbox
