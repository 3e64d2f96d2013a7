// The binary contract between kode-gopherd and a plugin shared object.
//
// A plugin exports one `extern "C"` symbol, kode_gopher_plugin_descriptor(), that returns a
// pointer to a static PluginDescriptor. The loader reads abi_version first (it is the first field
// precisely so that a plugin built against another layout is still recognised), then kind, then
// calls the matching create function. Nothing here carries Poco or RapidJSON types.
#pragma once

#include <cstdint>

#include "plugin_config_key.hpp"

namespace kg::plugin {

// A counter, not a date: add one whenever any header in daemon/plugin_api/ changes in a way
// that alters layout or virtual tables. The loader refuses a plugin whose number differs
// (docs/architecture.md, "Plugin loading policy"). Its first values looked like dates (20261202
// to 20261210, nine layouts); 10 is the last of those layouts renumbered as the counter.
// 11: the descriptor declares its runtime names and config keys. 12: the Go host services
// (binary cache, tidy) leave SandboxHandle for HostServices. 13: Limits carries
// max_run_timeout_ms, CommandOutcome the bytes of output discarded. 14: CommandSpec's
// prestart_arguments, RuntimePlugin::answers_sooner_than_interpreting and
// BinaryCacheService::holds_binary. 15: ExecuteRequest's action (go test, go vet),
// ExecuteResult's tests, Diagnostic's analyzer, Status test_failed and vet_findings.
// 16: CommandSpec's stream_output and stream_skip_prefix. 17: ExecuteResult's decline_evidence.
inline constexpr std::uint32_t kAbiVersion = 17;

enum class PluginKind : std::uint32_t {
  runtime = 1,
  credentials = 2,
};

class HostServices;
class RuntimePlugin;
class CredentialsPlugin;

// create_* may throw (the loader catches and reports it); exactly the one matching `kind` is set.
// The returned object is owned by the daemon and destroyed through its virtual destructor.
// The arrays live in the plugin's static storage; the loader copies them before create.
struct PluginDescriptor {
  std::uint32_t abi_version;
  PluginKind kind;
  const char* name;         // e.g. "compiled-go"; must match the file name <name>.so
  const char* version;      // the plugin's own version string
  const char* description;  // one line for `kode-gopher plugins`
  RuntimePlugin* (*create_runtime)(HostServices& host);
  CredentialsPlugin* (*create_credentials)(HostServices& host);
  // A runtime plugin: the runtime names a call, `[runtime] default` or `[runtime] auto_order`
  // may name to run code with it (at least one; today each plugin offers its own name). The
  // daemon offers exactly the names of the plugins it loaded. A credentials plugin: none.
  const char* const* runtime_names = nullptr;
  std::uint32_t runtime_name_count = 0;
  // The keys of the plugin's config section; another key there is a warning.
  const PluginConfigKey* config_keys = nullptr;
  std::uint32_t config_key_count = 0;
};

}  // namespace kg::plugin

// The entry symbol every plugin exports. It must not throw.
#define KG_PLUGIN_ENTRY_SYMBOL "kode_gopher_plugin_descriptor"
extern "C" {
using KgPluginEntryFn = const kg::plugin::PluginDescriptor* (*)() noexcept;
}

// Use in exactly one .cpp of a plugin: KG_EXPORT_PLUGIN(descriptor_variable)
#define KG_EXPORT_PLUGIN(descriptor)                                                        \
  extern "C" __attribute__((visibility("default"))) const kg::plugin::PluginDescriptor*     \
  kode_gopher_plugin_descriptor() noexcept {                                                \
    return &(descriptor);                                                                   \
  }
