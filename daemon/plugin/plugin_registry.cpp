#include "plugin_registry.hpp"

#include "plugin_load_error.hpp"

namespace kg::plugin_host {

void PluginRegistry::add(LoadedPlugin plugin) {
  if (const LoadedPlugin* existing = find(plugin.name)) {
    throw PluginLoadError("Plugin '" + plugin.name + "' from '" + plugin.path +
                          "' is already loaded from '" + existing->path +
                          "': remove one of the two files");
  }
  for (const std::string& runtime : plugin.runtime_names) {
    if (const LoadedPlugin* offering = find_runtime(runtime)) {
      throw PluginLoadError("Plugin '" + plugin.name + "' from '" + plugin.path +
                            "' offers runtime '" + runtime + "', which plugin '" +
                            offering->name + "' already offers: remove one of the two");
    }
  }
  std::string name = plugin.name;
  plugins_.emplace(std::move(name), std::move(plugin));
}

const LoadedPlugin* PluginRegistry::find(std::string_view name) const noexcept {
  const auto it = plugins_.find(name);
  return it != plugins_.end() ? &it->second : nullptr;
}

const LoadedPlugin* PluginRegistry::find_runtime(std::string_view name) const noexcept {
  for (const auto& [plugin_name, plugin] : plugins_) {
    for (const std::string& runtime : plugin.runtime_names) {
      if (runtime == name) return &plugin;
    }
  }
  return nullptr;
}

std::vector<std::string> PluginRegistry::runtime_names() const {
  std::vector<std::string> names;
  for (const auto& [plugin_name, plugin] : plugins_) {
    names.insert(names.end(), plugin.runtime_names.begin(), plugin.runtime_names.end());
  }
  return names;
}

plugin::RuntimePlugin* PluginRegistry::runtime(std::string_view name) const noexcept {
  const LoadedPlugin* plugin = find_runtime(name);
  if (plugin == nullptr || plugin->state != PluginState::ready) return nullptr;
  return plugin->runtime.get();
}

plugin::CredentialsPlugin* PluginRegistry::credentials(std::string_view name) const noexcept {
  const LoadedPlugin* plugin = find(name);
  if (plugin == nullptr || plugin->state != PluginState::ready) return nullptr;
  return plugin->credentials.get();
}

std::vector<PluginListEntry> PluginRegistry::list() const {
  std::vector<PluginListEntry> entries;
  entries.reserve(plugins_.size());
  for (const auto& [name, plugin] : plugins_) {
    entries.push_back(PluginListEntry{name, std::string(to_string(plugin.kind)), plugin.version,
                                      plugin.description, plugin.path,
                                      std::string(to_string(plugin.state)), plugin.reason});
  }
  return entries;
}

}  // namespace kg::plugin_host
