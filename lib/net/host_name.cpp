#include "host_name.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>

namespace kg::net {
namespace {

constexpr std::size_t kMaxNameLength = 253, kMaxLabelLength = 63;

[[noreturn]] void refuse(std::string_view text, const std::string& why) {
  throw InvalidHost("\"" + printable(text) + "\" is not a host name: " + why);
}

bool is_letter_or_digit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The first byte a DNS name cannot hold, explained; "" when every byte is allowed.
std::string bad_byte(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == 0) return "it contains a NUL byte";
    if (byte < 0x20 || byte == 0x7f) return "it contains a control character";
    if (byte == ' ') return "it contains a space";
    if (byte >= 0x80) {
      return "it contains non-ASCII bytes (write an internationalized name in its xn-- form)";
    }
    if (!is_letter_or_digit(c) && c != '-' && c != '.') {
      return std::string("it contains '") + c + "' (only letters, digits, '-' and '.' are allowed)";
    }
  }
  return "";
}

// Whether a resolver would take `name` for an IPv4 address: inet_aton's forms ("127.1",
// "2130706433", "0x7f.1"), or a last label of digits only (no top-level domain is numeric).
bool looks_like_ipv4(const std::string& name) {
  in_addr ignored{};
  if (::inet_aton(name.c_str(), &ignored) != 0) return true;
  const std::string_view last = std::string_view(name).substr(name.rfind('.') + 1);
  return std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string printable(std::string_view text) {
  std::string shown;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\\') {
      shown += c;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      shown += escaped;
    }
  }
  return shown;
}

HostName HostName::parse(std::string_view text) {
  if (text.empty()) refuse(text, "it is empty");
  if (const auto why = bad_byte(text); !why.empty()) refuse(text, why);
  std::string name(text.ends_with('.') ? text.substr(0, text.size() - 1) : text);
  if (name.empty()) refuse(text, "it is empty");
  if (name.size() > kMaxNameLength) refuse(text, "it is longer than 253 characters");
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = std::min(name.find('.', start), name.size());
    const std::string_view label = std::string_view(name).substr(start, end - start);
    if (label.empty()) refuse(text, "it has an empty label");
    if (label.size() > kMaxLabelLength) refuse(text, "it has a label longer than 63 characters");
    if (label.front() == '-' || label.back() == '-') {
      refuse(text, "it has a label that starts or ends with '-'");
    }
    if (end == name.size()) break;
    start = end + 1;
  }
  if (looks_like_ipv4(name)) refuse(text, "it is an IPv4 address in a form only resolvers read");
  std::transform(name.begin(), name.end(), name.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return HostName(std::move(name));
}

bool HostName::is_below(const HostName& suffix) const noexcept {
  return text_.size() > suffix.text_.size() + 1 && text_.ends_with(suffix.text_) &&
         text_[text_.size() - suffix.text_.size() - 1] == '.';
}

IpLiteral IpLiteral::parse(std::string_view text) {
  const bool bracketed = text.size() >= 2 && text.front() == '[' && text.back() == ']';
  const std::string address(bracketed ? text.substr(1, text.size() - 2) : text);
  if (address.find('\0') == std::string::npos) {
    char canonical[INET6_ADDRSTRLEN] = {};
    in_addr v4{};
    in6_addr v6{};
    if (!bracketed && ::inet_pton(AF_INET, address.c_str(), &v4) == 1) {
      return IpLiteral(AF_INET, ::inet_ntop(AF_INET, &v4, canonical, sizeof canonical));
    }
    if (::inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
      return IpLiteral(AF_INET6, ::inet_ntop(AF_INET6, &v6, canonical, sizeof canonical));
    }
  }
  throw InvalidHost("\"" + printable(text) + "\" is not an IP address");
}

Host Host::parse(std::string_view text) {
  // Anything with '[' or ':' can only be an IPv6 literal; a name never holds them.
  if (text.find_first_of("[:") != std::string_view::npos) {
    try {
      return Host(IpLiteral::parse(text));
    } catch (const InvalidHost&) {
      HostName::parse(text);  // throws, saying why it is not a name either
      throw;
    }
  }
  try {
    return Host(IpLiteral::parse(text));
  } catch (const InvalidHost&) {
    return Host(HostName::parse(text));
  }
}

const std::string& Host::text() const noexcept {
  return std::visit([](const auto& value) -> const std::string& { return value.text(); }, value_);
}

std::string Host::authority_text() const {
  const IpLiteral* address = ip();
  return address && address->family() == AF_INET6 ? "[" + address->text() + "]" : text();
}

}  // namespace kg::net
