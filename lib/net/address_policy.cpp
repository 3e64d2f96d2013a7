#include "address_policy.hpp"

#include <Poco/Net/IPAddress.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "host_name.hpp"

namespace kg::net {
namespace {

const std::vector<std::pair<IpPrefix, std::string>>& non_public_ranges() {
  static const auto ranges = [] {
    std::vector<std::pair<IpPrefix, std::string>> list;
    for (const auto& range : kLocalNetworkRanges) {
      list.emplace_back(IpPrefix::parse(range.prefix), range.reason);
    }
    for (const auto& range : kMachineOnlyRanges) {
      list.emplace_back(IpPrefix::parse(range.prefix), range.reason);
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

IpPrefix IpPrefix::of_address(const sockaddr* address) {
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

bool IpPrefix::operator==(const IpPrefix& other) const {
  return family == other.family && length == other.length && bytes == other.bytes;
}

bool IpPrefix::contains(const std::array<std::uint8_t, 16>& address_bytes,
                        int address_family) const {
  if (address_family != family) return false;
  const int full = length / 8, rest = length % 8;
  if (!std::equal(address_bytes.begin(), address_bytes.begin() + full, bytes.begin())) return false;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (address_bytes[full] & mask) == (bytes[full] & mask);
}

std::optional<std::string> why_not_public(const sockaddr* address,
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
  for (const auto& [range, reason] : non_public_ranges()) {
    if (range.contains(bytes, family)) return reason + " (" + range.text + ")";
  }
  for (const auto& own : host_addresses) {
    if (own.contains(bytes, family)) return "an address of the host itself (" + own.text + ")";
  }
  return std::nullopt;
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  // A literal address only (net::Host): "127.0.0.1.evil.example" is a name, resolved anywhere,
  // and "127.0.0.1\0.x" or "127.1" are neither.
  try {
    const Host parsed = Host::parse(host);
    return parsed.ip() != nullptr && Poco::Net::IPAddress(parsed.ip()->text()).isLoopback();
  } catch (const InvalidHost&) {
    return false;
  }
}

}  // namespace kg::net
