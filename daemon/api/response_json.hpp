// JSON bodies of the daemon API's answers (docs/daemon-api.md): call results, sessions, stats,
// plugins, errors. Pure functions; called from API threads.
#pragma once

#include <string>
#include <vector>

#include "api_errors.hpp"
#include "daemon_api/error_body.hpp"
#include "daemon_api/execute_result.hpp"
#include "daemon_api/plugins_listing.hpp"
#include "daemon_api/sessions_listing.hpp"
#include "daemon_api/stats.hpp"
#include "plugin_registry.hpp"
#include "session_manager.hpp"
#include "store/store.hpp"

namespace kg::api {

// A finished call as the daemon API answers it (ExecuteResult): every string and the result
// checked for the answer (checked_result.hpp). Team mode's MCP endpoint takes this value itself;
// the API routes send call_result_json, its text.
wire::daemon_api::ExecuteResult execute_result_message(const session::CallResult& call);
std::string call_result_json(const session::CallResult& call);
// Session, {"sessions": [Session]} and Stats, each written with its codec in
// lib/wire/daemon_api/ (sessions_listing.hpp, stats.hpp), which `kode-gopher` reads them with.
std::string session_json(const store::SessionRecord& session);
std::string sessions_json(const std::vector<store::SessionRecord>& sessions);
std::string stats_json(const store::Stats& stats);
// The loaded plugins, the runtimes a call may ask for with their state, and the [limits] a call
// runs under (GET /v1/plugins; its codec: lib/wire/daemon_api/plugins_listing.hpp); without
// plugins for `kode-gopherd --describe-runtimes`.
wire::daemon_api::PluginsListing plugins_listing(
    const plugin_host::PluginRegistry& registry,
    const std::vector<session::RuntimeState>& runtimes, const config::LimitsConfig& limits);
wire::daemon_api::PluginsListing runtimes_listing(
    const std::vector<session::RuntimeState>& runtimes, const config::LimitsConfig& limits);
std::string plugins_json(const plugin_host::PluginRegistry& registry,
                         const std::vector<session::RuntimeState>& runtimes,
                         const config::LimitsConfig& limits);
// {"runtimes": [...], "limits": {...}}: the same without plugins (`kode-gopherd
// --describe-runtimes`).
std::string runtimes_json(const std::vector<session::RuntimeState>& runtimes,
                          const config::LimitsConfig& limits);
// {"error": {"code", "message"}}: every non-2xx body and a failed stream's last line (its codec:
// lib/wire/daemon_api/error_body.hpp).
std::string error_json(const ApiError& error);

// docs/contracts.md §3: exit_code != 0, status != ok, result.kind != ok, or any warning.
bool result_is_error(const plugin::ExecuteResult& result);

}  // namespace kg::api
