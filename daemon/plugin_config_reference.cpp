#include "plugin_config_reference.hpp"

#include "config/daemon_config.hpp"
#include "error_chain.hpp"
#include "install_layout.hpp"
#include "plugin_config_check.hpp"

namespace kg {
namespace {

std::string allowed_values(const plugin_host::DeclaredConfigKey& key) {
  switch (key.type) {
    case plugin::ConfigKeyType::text: return "one line of text";
    case plugin::ConfigKeyType::boolean: return "`true`, `false`";
    case plugin::ConfigKeyType::integer:
      return "an integer from " + std::to_string(key.min) + " to " + std::to_string(key.max);
    case plugin::ConfigKeyType::choice: {
      std::string out;
      for (const auto& choice : key.choices) out += (out.empty() ? "`" : ", `") + choice + "`";
      return out;
    }
    case plugin::ConfigKeyType::absolute_path: return "an absolute path";
  }
  return "a value";
}

std::string code_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "`" : ", `") + name + "`";
  return out;
}

}  // namespace

std::string plugin_config_reference_markdown(const plugin_host::PluginRegistry& plugins) {
  std::string out;
  for (const auto& entry : plugins.list()) {
    const plugin_host::LoadedPlugin& plugin = *plugins.find(entry.name);
    if (!out.empty()) out += '\n';
    out += "### `[" + plugin.name + "]`\n\n" + plugin.description + " (" + entry.kind +
           " plugin";
    if (!plugin.runtime_names.empty()) out += "; runtimes: " + code_list(plugin.runtime_names);
    out += ").\n\n";
    if (plugin.config_keys.empty()) {
      out += "No keys of its own.\n";
      continue;
    }
    out += "| Key | Default | Allowed values | Meaning |\n|---|---|---|---|\n";
    for (const auto& key : plugin.config_keys) {
      out += "| `" + plugin.name + "." + key.name + "` | " + key.default_text + " | " +
             allowed_values(key) + " | " + key.help + " |\n";
    }
  }
  return out;
}

int describe_plugin_config(const std::optional<std::string>& config_path, std::ostream& out,
                           std::ostream& err) {
  try {
    plugin_host::PluginRegistry plugins;
    std::vector<std::string> unreadable;
    read_plugin_declarations(resolve_plugin_dirs(config::load_config(config_path).config),
                             plugins, unreadable);
    for (const auto& message : unreadable) err << "warning: " << message << '\n';
    out << plugin_config_reference_markdown(plugins);
    return 0;
  } catch (const std::exception& error) {
    err << "kode-gopherd: " << describe_error_chain(error) << '\n';
    return 1;
  }
}

}  // namespace kg
