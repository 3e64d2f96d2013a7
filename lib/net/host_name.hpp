// Validated destination hosts: the one way a host string from outside (a proxy request, a TLS
// ClientHello, a client ID URL, a config entry) becomes something the daemon checks, resolves,
// connects to or sends as a TLS server name. A HostName is a DNS name and nothing else, so the
// name an allowlist judged is byte for byte the name the resolver looks up: text that a C
// resolver would read differently ("a.example\0.googleapis.com", stopping at the NUL; "127.1",
// an IPv4 address in disguise) never becomes one (docs/egress.md, "Names").
// Values; thread-safe to share once made.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace kg::net {

// Why a text is not a host, with the text itself shown escaped ("\x00" for a NUL byte).
class InvalidHost : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `text` with every byte outside printable ASCII written as \xNN, for messages and logs.
std::string printable(std::string_view text);

// A DNS host name in canonical form: lowercase ASCII letters, digits and hyphens in dot-separated
// labels of 1 to 63 characters (none starting or ending with a hyphen), at most 253 characters,
// without a trailing dot. Internationalized names only in their ASCII form (xn--...).
class HostName {
 public:
  // Accepts one trailing dot and any case. Throws InvalidHost: empty, a NUL, control, space or
  // non-ASCII byte, any other character but letters, digits, '-' and '.', an empty or over-long
  // label, a label starting or ending with '-', more than 253 characters, or an IP address in
  // any form a resolver accepts ("127.0.0.1", "127.1", "2130706433", "0x7f.1"; a name's last
  // label is never all digits).
  static HostName parse(std::string_view text);

  const std::string& text() const noexcept { return text_; }
  // Whether this name lies strictly below `suffix` ("a.b.example" below "b.example"; a name is
  // not below itself, and "xb.example" is not below "b.example").
  bool is_below(const HostName& suffix) const noexcept;

  friend bool operator==(const HostName&, const HostName&) = default;

 private:
  explicit HostName(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// An IP address literal: strict dotted-quad IPv4 or IPv6 (in brackets or not, no zone), kept in
// the canonical text inet_ntop gives ("2001:db8::1").
class IpLiteral {
 public:
  // Throws InvalidHost when `text` is not such an address.
  static IpLiteral parse(std::string_view text);

  int family() const noexcept { return family_; }  // AF_INET or AF_INET6
  const std::string& text() const noexcept { return text_; }  // no brackets

  friend bool operator==(const IpLiteral&, const IpLiteral&) = default;

 private:
  IpLiteral(int family, std::string text) : family_(family), text_(std::move(text)) {}
  int family_;
  std::string text_;
};

// Where a request wants to go: a HostName or an IpLiteral, never anything else.
class Host {
 public:
  // An IpLiteral when `text` is one ("[::1]", "::1", "10.0.0.1"), else a HostName. Throws
  // InvalidHost with the HostName's reason.
  static Host parse(std::string_view text);
  explicit Host(HostName name) : value_(std::move(name)) {}
  explicit Host(IpLiteral address) : value_(std::move(address)) {}

  const HostName* name() const noexcept { return std::get_if<HostName>(&value_); }
  const IpLiteral* ip() const noexcept { return std::get_if<IpLiteral>(&value_); }
  // The canonical text: the name, or the address without brackets.
  const std::string& text() const noexcept;
  // As it is written in a URL authority or a Host header: an IPv6 address in brackets.
  std::string authority_text() const;

  friend bool operator==(const Host&, const Host&) = default;

 private:
  std::variant<HostName, IpLiteral> value_;
};

}  // namespace kg::net
