#include "loaded_plugin.hpp"

namespace kg::plugin_host {

std::string_view to_string(plugin::PluginKind kind) noexcept {
  switch (kind) {
    case plugin::PluginKind::runtime: return "runtime";
    case plugin::PluginKind::credentials: return "credentials";
  }
  return "unknown";
}

std::string_view to_string(PluginState state) noexcept {
  return state == PluginState::ready ? "ready" : "unavailable";
}

}  // namespace kg::plugin_host
