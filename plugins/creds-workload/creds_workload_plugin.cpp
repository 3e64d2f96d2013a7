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
//   mode = sealed                     sealed: the sandbox gets a worthless placeholder and the
//                                     daemon's egress proxy adds the real token on requests to
//                                     Google API hosts; access-token: the sandbox gets the token
//                                     (mode workload)
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

using kg::plugin::ConfigKeyType;
constexpr const char* kModes[] = {"sealed", "access-token"};
constexpr kg::plugin::PluginConfigKey kConfigKeys[] = {
    {.name = "metadata_host", .type = ConfigKeyType::text, .default_text = "169.254.169.254",
     .help = "host[:port] of the metadata server; GCE_METADATA_HOST in the daemon's "
             "environment wins, as in the Google libraries."},
    {.name = "service_account", .type = ConfigKeyType::text, .default_text = "default",
     .help = "The account whose tokens programs get: default, or the email of another account "
             "the metadata server serves."},
    {.name = "scopes", .type = ConfigKeyType::text, .default_text = "the account's own scopes",
     .help = "Comma-separated OAuth scopes of the tokens."},
    {.name = "timeout_ms", .type = ConfigKeyType::integer, .default_text = "3000",
     .help = "Timeout of each request to the metadata server.", .min = 100, .max = 120000},
    {.name = "mode", .type = ConfigKeyType::choice, .default_text = "sealed",
     .help = "sealed: programs hold only a worthless placeholder token and the egress proxy "
             "puts the real one on their requests to Google API hosts (needs [sandbox] network "
             "= allowlist, docs/credentials.md); access-token: the sandbox holds the real "
             "short-lived token (reported as mode workload).",
     .choices = kModes, .choice_count = 2},
};

const kg::plugin::PluginDescriptor kDescriptor = {
    .abi_version = kg::plugin::kAbiVersion,
    .kind = kg::plugin::PluginKind::credentials,
    .name = "creds-workload",
    .version = "0.1.0",
    .description = "Workload identity from the metadata server the daemon runs under",
    .create_runtime = nullptr,
    .create_credentials = &create,
    .config_keys = kConfigKeys,
    .config_key_count = sizeof kConfigKeys / sizeof kConfigKeys[0],
};

}  // namespace

KG_EXPORT_PLUGIN(kDescriptor)
