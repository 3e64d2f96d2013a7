// The checks of the sections that belong to plugins ([compiled-go], [creds-adc], ...). The
// daemon's key table knows only the daemon's own sections (config_keys.hpp); each plugin declares
// its keys in its descriptor (daemon/plugin_api/plugin_config_key.hpp), so these checks run once
// the plugins are known: at the daemon's start after loading them, and in `kode-gopherd
// --check-config`, which reads their descriptors (docs/configuration.md, "Plugin sections").
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "daemon_config.hpp"

namespace kg::config {

// A loaded plugin's section: its name and the keys its descriptor declares.
struct PluginSection {
  std::string name;
  std::vector<std::string> keys;
};

// Warnings for `config`'s plugin sections (DaemonConfig::plugin_sections): a section no loaded
// plugin owns, and a key its plugin does not declare, each at its line in the file.
std::vector<ConfigIssue> plugin_section_issues(const DaemonConfig& config,
                                               const std::vector<PluginSection>& loaded);

}  // namespace kg::config
