#include "load_all_plugins.hpp"

#include <string>

#include "plugin_load_error.hpp"

namespace kg::plugin_host {

std::size_t load_all(const PluginLoader& loader, PluginRegistry& registry,
                     plugin::HostServices& host, plugin::Logger& logger) {
  std::size_t ready = 0;
  for (const std::string& name : loader.discover()) {
    try {
      LoadedPlugin plugin = loader.load(name, host);
      std::string line = plugin.state == PluginState::ready
                             ? "Plugin '" + name + "' " + plugin.version + " loaded from " +
                                   plugin.path
                             : "Plugin '" + name + "' disabled: " + plugin.reason;
      const bool is_ready = plugin.state == PluginState::ready;
      registry.add(std::move(plugin));
      logger.log(is_ready ? plugin::LogLevel::info : plugin::LogLevel::warn, line);
      if (is_ready) ++ready;
    } catch (const PluginLoadError& error) {
      logger.log(plugin::LogLevel::warn, "Plugin '" + name + "' not loaded: " + error.what());
    }
  }
  return ready;
}

}  // namespace kg::plugin_host
