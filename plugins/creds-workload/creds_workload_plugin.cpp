// creds-workload: programs run as the daemon's own workload identity (GKE Workload Identity, a
// GCE VM's service account), read from the metadata server the daemon runs under; a sandbox
// gets only a short-lived access token (served by its own metadata emulator).
//
// Config ([creds-workload] in the daemon's INI file; every key optional):
//   metadata_host = 169.254.169.254   host[:port] of the metadata server; GCE_METADATA_HOST in
//                                     the daemon's environment wins, as in the Google libraries
//   service_account = default         or the email of another account the server serves
//   scopes =                          comma-separated; empty: the account's own scopes
//   timeout_ms = 3000                 per request, 100..120000
// Example:
//   [credentials]
//   plugin = creds-workload
#include <cstdlib>

#include "plugin_abi.hpp"
#include "workload_credentials.hpp"

namespace {

kg::plugin::CredentialsPlugin* create(kg::plugin::HostServices& host) {
  auto settings = kg::creds_workload::read_workload_settings(
      [&host](std::string_view key) { return host.config_value(key); },
      [](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        if (value == nullptr) return std::nullopt;
        return std::string(value);
      });
  return new kg::creds_workload::WorkloadCredentials(std::move(settings), host.logger());
}

const kg::plugin::PluginDescriptor kDescriptor = {
    kg::plugin::kAbiVersion,
    kg::plugin::PluginKind::credentials,
    "creds-workload",
    "0.1.0",
    "Workload identity from the metadata server the daemon runs under",
    nullptr,
    &create,
};

}  // namespace

KG_EXPORT_PLUGIN(kDescriptor)
