// One plugin as the loader produced it: what the descriptor said, where the file is, the object
// its create function made, and whether it can be used. PluginLoader::load() makes it;
// PluginRegistry owns it for the rest of the daemon's life.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "credentials_plugin.hpp"
#include "plugin_abi.hpp"
#include "runtime_plugin.hpp"

namespace kg::plugin_host {

enum class PluginState {
  ready,        // loaded and usable
  unavailable,  // loaded, but it said it cannot work here (LoadedPlugin::reason says why)
};

// One key of a plugin's config section, copied from its descriptor (plugin_config_key.hpp).
struct DeclaredConfigKey {
  std::string name;
  plugin::ConfigKeyType type = plugin::ConfigKeyType::text;
  std::string default_text;
  std::string help;
  std::vector<std::string> choices;  // choice
  std::uint64_t min = 0;             // integer
  std::uint64_t max = 0;             // integer
};

struct LoadedPlugin {
  std::string name;         // the file name without ".so", equal to the descriptor's name
  std::string path;         // "<dir>/<name>.so" in the plugin directory it was found in
  std::string version;      // from the descriptor
  std::string description;  // from the descriptor
  plugin::PluginKind kind = plugin::PluginKind::runtime;
  std::vector<std::string> runtime_names;     // runtime plugins: the names calls may ask for
  std::vector<DeclaredConfigKey> config_keys; // the keys of its [<name>] section
  PluginState state = PluginState::ready;
  std::string reason;  // why the plugin is unavailable; empty when ready

  // Exactly the one matching `kind` is set. Destroyed through the plugin's own virtual
  // destructor, which stays mapped because `handle` is never closed.
  std::unique_ptr<plugin::RuntimePlugin> runtime;
  std::unique_ptr<plugin::CredentialsPlugin> credentials;

  // The dlopen() handle. Deliberately never dlclose'd: plugins stay loaded while the daemon
  // runs, so no object, vtable or thread a plugin made can outlive its code.
  void* handle = nullptr;
};

// "runtime" | "credentials" (anything else: "unknown").
std::string_view to_string(plugin::PluginKind kind) noexcept;
// "ready" | "unavailable".
std::string_view to_string(PluginState state) noexcept;
// "text" | "boolean" | "integer" | "choice" | "absolute path" (anything else: "unknown").
std::string_view to_string(plugin::ConfigKeyType type) noexcept;

}  // namespace kg::plugin_host
