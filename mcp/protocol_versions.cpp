#include "protocol_versions.hpp"

#include <algorithm>

#include "json_rpc.hpp"

namespace kg::mcp {

std::string_view negotiate_legacy_version(std::string_view requested) {
  const auto found =
      std::find(kSupportedVersions.begin() + 1, kSupportedVersions.end(), requested);
  return found != kSupportedVersions.end() ? *found : kLatestLegacyVersion;
}

ProtocolFeatures features_for(std::string_view version) {
  ProtocolFeatures features;
  features.version = std::string(version);
  features.modern = version == kModernVersion;
  // Revision dates compare as strings; structured tool output and titles arrived in 2025-06-18.
  features.structured_output = version >= std::string_view("2025-06-18");
  features.titles = features.structured_output;
  // Experimental tasks arrived in 2025-11-25; 2026-07-28 took them out of the core protocol.
  features.tasks = version == kLatestLegacyVersion;
  return features;
}

std::string supported_versions_json() {
  std::string json = "[";
  for (const std::string_view version : kSupportedVersions) {
    if (json.size() > 1) json += ',';
    json += '"';
    json += version;
    json += '"';
  }
  return json + "]";
}

std::optional<std::string> modern_request_version(const rapidjson::Value* params) {
  const rapidjson::Value* version =
      find_member(find_member(params, "_meta"), kProtocolVersionMetaKey);
  if (version == nullptr) return std::nullopt;
  // A present but non-string version is still a modern request, and an unsupported one.
  return version->IsString() ? std::string(version->GetString(), version->GetStringLength())
                             : to_json(*version);
}

}  // namespace kg::mcp
