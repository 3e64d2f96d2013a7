// What the daemon API's handlers need, lent by Instance for the server's whole life.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base_cache.hpp"
#include "call_credentials.hpp"
#include "plugin_registry.hpp"
#include "session_manager.hpp"
#include "store/store.hpp"
#include "tidy_module_cache.hpp"

namespace kg::api {

// Team mode's MCP endpoint as /v1/health reports it; url empty when team mode is off.
struct TeamEndpointStatus {
  std::string url;        // <public_url>/mcp
  std::string listening;  // the address bound
  std::string transport;  // "https", "http", or "http behind a trusted proxy"
  std::string auth;       // "oauth" or "none"
  std::string run_as;     // "user" or "daemon"; empty with auth none
};

struct ApiContext {
  session::SessionManager& sessions;
  plugin_host::PluginRegistry& plugins;
  session::CallCredentials& credentials;  // GET /v1/auth
  store::Store& store;
  plugin::Logger& logger;
  std::string version;
  std::string socket_path;
  std::string state_dir;
  std::uint64_t max_request_bytes;
  std::uint32_t max_sessions;  // with max_queued: how many requests may block at once
  std::uint32_t max_queued;
  std::chrono::steady_clock::time_point started_at;
  std::string provider_name;           // [sandbox] provider: local or kubernetes
  std::vector<std::string> isolation;  // what isolation sandboxes get, one line each
  const sandbox::BaseCache* base_cache;  // its state, for /v1/health; null: none on the host
  // Choices that weaken isolation, made explicitly in the config ([sandbox] host_uid = 0).
  std::vector<std::string> warnings;
  TeamEndpointStatus team;  // set by Instance once team mode is bound
  const sandbox::TidyModuleCache* tidy_modules = nullptr;  // its usage, for /v1/health
};

}  // namespace kg::api
