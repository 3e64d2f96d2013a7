// The plugins the daemon has loaded, by name. Owned by the daemon's Instance (one per daemon,
// no singleton, no self-registration): Instance fills it at start-up, the daemon API's
// `/v1/plugins` and `kode-gopher plugins` list it, and each call looks up its runtime here.
//
// Thread-safety: add() is called only during start-up, on the start-up thread, before any
// other thread can see the registry. After that the registry is read-only, and the const
// methods may be called from any number of threads at once without locking. Pointers it
// returns stay valid for the registry's whole life.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "loaded_plugin.hpp"

namespace kg::plugin_host {

// One row of `kode-gopher plugins` / `GET /v1/plugins`.
struct PluginListEntry {
  std::string name;
  std::string kind;  // "runtime" | "credentials"
  std::string version;
  std::string description;
  std::string path;
  std::string state;   // "ready" | "unavailable"
  std::string reason;  // empty when ready

  bool operator==(const PluginListEntry&) const = default;
};

class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Takes ownership. Throws PluginLoadError when a plugin of that name is already registered,
  // or another plugin already offers one of its runtime names.
  void add(LoadedPlugin plugin);

  // The runtime plugin that offers runtime `name` (its descriptor's runtime_names); nullptr
  // when none does or it is unavailable.
  plugin::RuntimePlugin* runtime(std::string_view name) const noexcept;
  // The plugin that offers runtime `name`, ready or not; nullptr when none does.
  const LoadedPlugin* find_runtime(std::string_view name) const noexcept;
  // Every runtime name the registered runtime plugins offer, ready or not, sorted by plugin
  // name: what a call and `[runtime] default` may name (besides auto).
  std::vector<std::string> runtime_names() const;
  // The credentials plugin `name`; nullptr when there is none or it is a runtime plugin.
  plugin::CredentialsPlugin* credentials(std::string_view name) const noexcept;
  // Any registered plugin, ready or not; nullptr when absent.
  const LoadedPlugin* find(std::string_view name) const noexcept;

  // Every registered plugin, sorted by name.
  std::vector<PluginListEntry> list() const;

 private:
  std::map<std::string, LoadedPlugin, std::less<>> plugins_;  // nodes never move
};

}  // namespace kg::plugin_host
