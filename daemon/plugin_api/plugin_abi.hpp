// The binary contract between kode-gopherd and a plugin shared object.
//
// A plugin exports one `extern "C"` symbol, kode_gopher_plugin_descriptor(), that returns a
// pointer to a static PluginDescriptor. The loader reads abi_version first (it is the first field
// precisely so that a plugin built against another layout is still recognised), then kind, then
// calls the matching create function. Nothing here carries Poco or RapidJSON types.
#pragma once

#include <cstdint>

namespace kg::plugin {

// The ABI is named by the date it last changed (knot-resolver style). Bump it whenever any
// header in daemon/plugin_api/ changes in a way that alters layout or virtual tables.
inline constexpr std::uint32_t kAbiVersion = 20261211;

enum class PluginKind : std::uint32_t {
  runtime = 1,
  credentials = 2,
};

class HostServices;
class RuntimePlugin;
class CredentialsPlugin;

// create_* may throw (the loader catches and reports it); exactly the one matching `kind` is set.
// The returned object is owned by the daemon and destroyed through its virtual destructor.
struct PluginDescriptor {
  std::uint32_t abi_version;
  PluginKind kind;
  const char* name;         // e.g. "compiled-go"; must match the file name <name>.so
  const char* version;      // the plugin's own version string
  const char* description;  // one line for `kode-gopher plugins`
  RuntimePlugin* (*create_runtime)(HostServices& host);
  CredentialsPlugin* (*create_credentials)(HostServices& host);
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
