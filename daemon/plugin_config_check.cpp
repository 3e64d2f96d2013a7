#include "plugin_config_check.hpp"

#include "daemon_config.hpp"
#include "runtime_names_check.hpp"
#include "install_layout.hpp"
#include "plugin_load_error.hpp"
#include "plugin_loader.hpp"

namespace kg {

std::vector<config::PluginSection> plugin_sections_of(const plugin_host::PluginRegistry& plugins) {
  std::vector<config::PluginSection> sections;
  for (const auto& entry : plugins.list()) {
    const plugin_host::LoadedPlugin* plugin = plugins.find(entry.name);
    config::PluginSection section{plugin->name, {}};
    for (const auto& key : plugin->config_keys) section.keys.push_back(key.name);
    sections.push_back(std::move(section));
  }
  return sections;
}

void read_plugin_declarations(const std::vector<std::string>& dirs,
                              plugin_host::PluginRegistry& plugins,
                              std::vector<std::string>& unreadable) {
  const plugin_host::PluginLoader loader(dirs);
  for (const std::string& name : loader.discover()) {
    try {
      plugins.add(loader.read_declarations(name));
    } catch (const plugin_host::PluginLoadError& error) {
      unreadable.emplace_back(error.what());
    }
  }
}

int check_config_with_plugins(const std::string& file, std::ostream& out) {
  using Severity = config::ConfigIssue::Severity;
  std::vector<config::ConfigIssue> issues = config::check_config_file(file);
  bool has_errors = false;
  for (const auto& issue : issues) has_errors = has_errors || issue.severity == Severity::error;
  if (!has_errors) {
    // The values are good enough to know where the plugins are; read what they declare.
    config::DaemonConfig config;
    try {
      config = config::load_config(file).config;
    } catch (const std::exception&) {
      // check_config_file found no error, so load_config finds none either.
    }
    plugin_host::PluginRegistry plugins;
    std::vector<std::string> unreadable;
    read_plugin_declarations(resolve_plugin_dirs(config), plugins, unreadable);
    for (const auto& message : unreadable) {
      issues.push_back({Severity::warning, file, "",
                        "plugin not loaded, its section is not checked: " + message});
    }
    for (auto& issue : config::plugin_section_issues(config, plugin_sections_of(plugins))) {
      issues.push_back(std::move(issue));
    }
    for (auto& issue : config::runtime_name_issues(config, plugins.runtime_names())) {
      // A plugin that could not be read may offer the name: then it is only a warning.
      if (!unreadable.empty()) issue.severity = Severity::warning;
      has_errors = has_errors || issue.severity == Severity::error;
      issues.push_back(std::move(issue));
    }
  }
  for (const auto& issue : issues) {
    out << (issue.severity == Severity::error ? "error: " : "warning: ") << issue.to_string()
        << '\n';
  }
  if (issues.empty()) out << file << ": OK\n";
  return has_errors ? 1 : 0;
}

}  // namespace kg
