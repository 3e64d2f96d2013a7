#include "egress_allowlist.hpp"

#include <algorithm>
#include <stdexcept>

namespace kg::sandbox {
namespace {

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

std::optional<EgressRefusal> EgressAllowlist::refusal(const net::Host& host, int port) const {
  if (std::find(ports.begin(), ports.end(), port) == ports.end()) {
    std::string allowed;
    for (const int p : ports) allowed += (allowed.empty() ? "" : ", ") + std::to_string(p);
    return EgressRefusal{"port " + std::to_string(port) + " is not in [sandbox] allowed_ports (" +
                             allowed + ")",
                         EgressRefusalKind::port_not_allowed};
  }
  for (const auto& pattern : hosts) {
    if (pattern.matches(host)) return std::nullopt;
  }
  if (host.ip() != nullptr) {
    return EgressRefusal{"IP address literals are refused unless listed in [sandbox] "
                         "allowed_hosts; ask for the host by name",
                         EgressRefusalKind::ip_literal};
  }
  return EgressRefusal{host.text() + " is not in [sandbox] allowed_hosts (" + list_text(hosts) + ")",
                       EgressRefusalKind::host_not_allowed};
}

std::optional<std::string> EgressAllowlist::refuse(const net::Host& host, int port) const {
  if (auto refused = refusal(host, port)) return std::move(refused->reason);
  return std::nullopt;
}

}  // namespace kg::sandbox
