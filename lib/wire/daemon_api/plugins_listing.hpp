// The answer of GET /v1/plugins (docs/daemon-api.md): the loaded plugins, the runtimes a call
// may name, and the limits it runs under. `kode-gopherd --describe-runtimes` prints the same message without "plugins".
// Written by the daemon (daemon/api/response_json.cpp), read by `kode-gopher plugins` and by the
// MCP server, which makes execute_go_code's runtime enum from it; team mode's MCP endpoint takes
// the value itself. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kg::wire::daemon_api {

struct PluginEntry {
  std::string name;
  std::string kind;
  std::string version;
  std::string description;
  std::string path;
  std::string state;   // ready, unavailable, …
  std::string reason;  // why it is not ready; empty when it is
  bool operator==(const PluginEntry&) const = default;
};

struct RuntimeEntry {
  std::string name;
  bool available = false;
  bool is_default = false;  // "default"
  std::string description;
  std::vector<std::string> chooses;  // auto: the runtimes it picks from, in order; else empty
  std::string reason;
  bool operator==(const RuntimeEntry&) const = default;
};

// The daemon's [limits] that a call meets and may ask about (docs/configuration.md), so that the
// MCP tool describes this daemon's numbers, not the defaults.
struct CallLimits {
  std::uint32_t run_timeout_ms = 0;      // [limits] run_timeout_ms: a call's run, by default
  std::uint32_t max_run_timeout_ms = 0;  // [limits] max_run_timeout_ms: the most timeout_ms asks
  std::uint32_t build_timeout_ms = 0;    // [limits] build_timeout_ms
  std::uint64_t output_bytes = 0;        // [limits] output_bytes: kept of stdout and of stderr
  bool operator==(const CallLimits&) const = default;
};

struct PluginsListing {
  std::optional<std::vector<PluginEntry>> plugins;  // absent: --describe-runtimes
  std::vector<RuntimeEntry> runtimes;
  std::optional<CallLimits> limits;  // absent: a daemon from before it sent them
  bool operator==(const PluginsListing&) const = default;
};

std::string encode_plugins_listing(const PluginsListing& listing);

// Reads an answer parsed within json::kDaemonAnswerLimits. Throws MalformedMessage naming a
// member out of shape; a runtime without a name is one, and so is "limits" without all four
// numbers (a daemon sends all or none).
PluginsListing decode_plugins_listing(const rapidjson::Value& value);

}  // namespace kg::wire::daemon_api
