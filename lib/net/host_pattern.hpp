// One entry of an allowlist of destinations ([sandbox] allowed_hosts): an exact host name, a
// "*.suffix" pattern (any name below the suffix, not the suffix itself) or an IP literal, which
// matches only that address (a pattern never admits an address). Made from config text once;
// matched against a validated Host, so what is matched is what is resolved (host_name.hpp).
// A value; thread-safe to share once made.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "host_name.hpp"

namespace kg::net {

class HostPattern {
 public:
  // Throws InvalidHost saying why `text` is none of the three forms ("*", "a.*.example",
  // "*.", "x_y.example", "a.example\0b" all are refused).
  static HostPattern parse(std::string_view text);

  bool matches(const Host& host) const noexcept;
  // The canonical form: "*.example.com", "example.com", "2001:db8::1".
  std::string text() const;

  friend bool operator==(const HostPattern&, const HostPattern&) = default;

 private:
  struct Below {
    HostName suffix;
    friend bool operator==(const Below&, const Below&) = default;
  };
  template <typename T>
  explicit HostPattern(T value) : value_(std::move(value)) {}
  std::variant<HostName, Below, IpLiteral> value_;
};

}  // namespace kg::net
