// One plugin as the loader produced it: what the descriptor said, where the file is, the object
// its create function made, and whether it can be used. PluginLoader::load() makes it;
// PluginRegistry owns it for the rest of the daemon's life.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "credentials_plugin.hpp"
#include "plugin_abi.hpp"
#include "runtime_plugin.hpp"

namespace kg::plugin_host {

enum class PluginState {
  ready,        // loaded and usable
  unavailable,  // loaded, but it said it cannot work here (LoadedPlugin::reason says why)
};

struct LoadedPlugin {
  std::string name;         // the file name without ".so", equal to the descriptor's name
  std::string path;         // "<dir>/<name>.so" in the plugin directory it was found in
  std::string version;      // from the descriptor
  std::string description;  // from the descriptor
  plugin::PluginKind kind = plugin::PluginKind::runtime;
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

}  // namespace kg::plugin_host
