#include "loaded_plugin.hpp"

namespace kg::plugin_host {

std::string_view to_string(plugin::PluginKind kind) noexcept {
  switch (kind) {
    case plugin::PluginKind::runtime: return "runtime";
    case plugin::PluginKind::credentials: return "credentials";
  }
  return "unknown";
}

std::string_view to_string(plugin::ConfigKeyType type) noexcept {
  switch (type) {
    case plugin::ConfigKeyType::text: return "text";
    case plugin::ConfigKeyType::boolean: return "boolean";
    case plugin::ConfigKeyType::integer: return "integer";
    case plugin::ConfigKeyType::choice: return "choice";
    case plugin::ConfigKeyType::absolute_path: return "absolute path";
  }
  return "unknown";
}

std::string_view to_string(PluginState state) noexcept {
  return state == PluginState::ready ? "ready" : "unavailable";
}

}  // namespace kg::plugin_host
