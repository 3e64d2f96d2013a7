// The MCP protocol revisions `kode-gopher serve` speaks and what differs between them.
//
// Legacy revisions (2025-11-25, 2025-06-18, 2025-03-26) open with an `initialize` handshake whose
// answer names the version for the rest of the process. The modern revision (2026-07-28) has no
// handshake: every request carries its version and the client's capabilities in `_meta`, and
// every result carries `resultType`. The server is dual-era: it serves both, per request.
// Pure functions; any thread.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace kg::mcp {

inline constexpr std::string_view kModernVersion = "2026-07-28";
inline constexpr std::string_view kLatestLegacyVersion = "2025-11-25";
// Newest first; the modern revision leads, as server/discover and version errors list them.
inline constexpr std::array<std::string_view, 4> kSupportedVersions = {
    kModernVersion, kLatestLegacyVersion, "2025-06-18", "2025-03-26"};

inline constexpr std::string_view kProtocolVersionMetaKey =
    "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kClientCapabilitiesMetaKey =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kServerInfoMetaKey = "io.modelcontextprotocol/serverInfo";

// What the version of one request allows in its answer.
struct ProtocolFeatures {
  std::string version;
  bool modern = false;             // resultType, serverInfo in _meta, ttlMs/cacheScope on lists
  bool structured_output = false;  // outputSchema, structuredContent (2025-06-18+)
  bool titles = false;             // `title` of tools and prompts (2025-06-18+)
  bool tasks = false;              // tasks (2025-11-25 only: 2026-07-28 moved them to an extension)
};

// The version an `initialize` asking for `requested` gets: the same when it is a legacy revision
// this server speaks, else the latest legacy revision (2026-07-28 has no `initialize`).
std::string_view negotiate_legacy_version(std::string_view requested);

ProtocolFeatures features_for(std::string_view version);

// The JSON array of kSupportedVersions.
std::string supported_versions_json();

// The `_meta` protocol version of a request's params, if it carries one: such a request is
// served statelessly under that revision (it must be kModernVersion).
std::optional<std::string> modern_request_version(const rapidjson::Value* params);

}  // namespace kg::mcp
