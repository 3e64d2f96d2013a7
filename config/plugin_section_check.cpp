#include "plugin_section_check.hpp"

#include <algorithm>

#include "config_keys.hpp"

namespace kg::config {
namespace {

std::string joined(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string known_sections(const std::vector<PluginSection>& loaded) {
  std::string out = "known sections: ";
  bool first = true;
  for (const auto section : config_section_names()) {
    if (!first) out += ", ";
    out.append(section);
    first = false;
  }
  std::vector<std::string> plugins;
  for (const auto& plugin : loaded) plugins.push_back(plugin.name);
  return out + "; sections of the loaded plugins: " + joined(plugins);
}

int line_of(const DaemonConfig& config, const std::string& section, const std::string& key) {
  const auto lines = config.plugin_section_lines.find(section);
  if (lines == config.plugin_section_lines.end()) return 0;
  const auto line = lines->second.find(key);
  return line == lines->second.end() ? 0 : line->second;
}

}  // namespace

std::vector<ConfigIssue> plugin_section_issues(const DaemonConfig& config,
                                               const std::vector<PluginSection>& loaded) {
  std::vector<ConfigIssue> issues;
  for (const auto& [section, values] : config.plugin_sections) {
    const auto plugin = std::find_if(loaded.begin(), loaded.end(),
                                     [&](const PluginSection& p) { return p.name == section; });
    if (plugin == loaded.end()) {
      issues.push_back({ConfigIssue::Severity::warning, config.source_path, "",
                        "unknown section [" + section + "] (" + known_sections(loaded) + ")",
                        line_of(config, section, "")});
      continue;
    }
    for (const auto& [key, value] : values) {
      if (std::find(plugin->keys.begin(), plugin->keys.end(), key) != plugin->keys.end()) continue;
      issues.push_back({ConfigIssue::Severity::warning, config.source_path, "",
                        "unknown key \"" + section + "." + key + "\" (known keys in [" + section +
                            "]: " + joined(plugin->keys) + ")",
                        line_of(config, section, key)});
    }
  }
  std::stable_sort(issues.begin(), issues.end(),
                   [](const ConfigIssue& a, const ConfigIssue& b) { return a.line < b.line; });
  return issues;
}

}  // namespace kg::config
