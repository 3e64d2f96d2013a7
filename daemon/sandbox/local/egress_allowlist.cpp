#include "egress_allowlist.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
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

bool valid_pattern(std::string_view pattern) {
  if (pattern.empty() || pattern == "*.") return false;
  const std::string_view rest = pattern.starts_with("*.") ? pattern.substr(2) : pattern;
  return std::all_of(rest.begin(), rest.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '_';
  });
}

bool matches(std::string_view host, std::string_view pattern) {
  if (pattern.starts_with("*.")) {
    const std::string_view suffix = pattern.substr(1);  // ".example.com"
    return host.size() > suffix.size() && host.ends_with(suffix);
  }
  return host == pattern;
}

std::string list_text(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

void EgressAllowlist::validate() const {
  for (const auto& pattern : hosts) {
    if (!valid_pattern(normalize_host(pattern))) {
      throw std::invalid_argument(
          "\"" + pattern + "\" is not a host name, an IP address or a \"*.suffix\" pattern");
    }
  }
  for (const int port : ports) {
    if (port < 1 || port > 65535) {
      throw std::invalid_argument(std::to_string(port) + " is not a port (1 to 65535)");
    }
  }
}

std::optional<std::string> EgressAllowlist::refuse_name(std::string_view host, int port) const {
  if (std::find(ports.begin(), ports.end(), port) == ports.end()) {
    std::string allowed;
    for (const int p : ports) allowed += (allowed.empty() ? "" : ", ") + std::to_string(p);
    return "port " + std::to_string(port) + " is not in [sandbox] allowed_ports (" + allowed + ")";
  }
  const bool literal = is_ip_literal(host);
  for (const auto& pattern : hosts) {
    const std::string normalized = normalize_host(pattern);
    // An IP literal is admitted only by an exact entry, never by a pattern.
    if (literal ? host == normalized : matches(host, normalized)) return std::nullopt;
  }
  if (literal) {
    return "IP address literals are refused unless listed in [sandbox] allowed_hosts; ask for "
           "the host by name";
  }
  return std::string(host) + " is not in [sandbox] allowed_hosts (" + list_text(hosts) + ")";
}

std::string normalize_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.ends_with('.')) host.remove_suffix(1);
  std::string text(host);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool is_ip_literal(std::string_view host) {
  const std::string text(host);
  in_addr v4{};
  in6_addr v6{};
  // inet_aton takes the old forms ("127.1", "0x7f.1", "2130706433") that getaddrinfo accepts.
  return ::inet_aton(text.c_str(), &v4) != 0 || ::inet_pton(AF_INET6, text.c_str(), &v6) == 1;
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
