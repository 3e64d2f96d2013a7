#include "host_pattern.hpp"

namespace kg::net {

HostPattern HostPattern::parse(std::string_view text) {
  if (text.starts_with("*.")) {
    try {
      return HostPattern(Below{HostName::parse(text.substr(2))});
    } catch (const InvalidHost& e) {
      throw InvalidHost("\"" + printable(text) + "\" is not a \"*.suffix\" pattern: " + e.what());
    }
  }
  if (text.find('*') != std::string_view::npos) {
    throw InvalidHost("\"" + printable(text) +
                      "\" is not a host pattern: '*' is only allowed as a leading \"*.\"");
  }
  const Host host = Host::parse(text);
  if (const IpLiteral* address = host.ip()) return HostPattern(*address);
  return HostPattern(*host.name());
}

bool HostPattern::matches(const Host& host) const noexcept {
  if (const auto* address = std::get_if<IpLiteral>(&value_)) {
    return host.ip() != nullptr && *host.ip() == *address;
  }
  const HostName* name = host.name();
  if (name == nullptr) return false;
  if (const auto* below = std::get_if<Below>(&value_)) return name->is_below(below->suffix);
  return *name == std::get<HostName>(value_);
}

std::string HostPattern::text() const {
  if (const auto* below = std::get_if<Below>(&value_)) return "*." + below->suffix.text();
  if (const auto* address = std::get_if<IpLiteral>(&value_)) return address->text();
  return std::get<HostName>(value_).text();
}

}  // namespace kg::net
