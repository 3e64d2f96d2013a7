#include "egress_checks.hpp"

#include <algorithm>

#include "egress_world.hpp"

namespace kg::test::egress {

std::string allowlist_keys() {
  return "network = allowlist\n"
         "allowed_hosts = *.googleapis.com, " + std::string(kStorageHost) + ", " + kLoopbackHost +
         ", " + kPrivateHost + ", " + kMetadataHost + ", " + kHostSelfHost + ", " + kMixedHost +
         ", 169.254.169.254\n"
         "allowed_ports = 443, 80, " + std::to_string(kStoragePort) + ", " +
         std::to_string(world().host_service_port) + ", " + std::to_string(world().internet_port) +
         "\n";
}

std::vector<std::string> warnings_of(const rapidjson::Document& result) {
  std::vector<std::string> warnings;
  if (result.HasMember("warnings") && result["warnings"].IsArray()) {
    for (const auto& warning : result["warnings"].GetArray()) {
      const std::string text = warning.GetString();
      if (!text.starts_with("built with go build, not the fast path: ")) warnings.push_back(text);
    }
  }
  return warnings;
}

bool has_warning(const std::vector<std::string>& warnings, const std::string& part) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

}  // namespace kg::test::egress
