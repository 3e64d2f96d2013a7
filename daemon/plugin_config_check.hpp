// What the loaded plugins say about the config file's plugin sections: the keys each plugin
// declares (PluginDescriptor::config_keys), turned into config::PluginSection so the config
// layer can warn about a section no plugin owns or a key its plugin does not read
// (config/plugin_section_check.hpp). Used by Instance after loading the plugins, and by
// `kode-gopherd --check-config` (check_config_with_plugins). Main thread.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "plugin_section_check.hpp"
#include "plugin_registry.hpp"

namespace kg {

// One section per registered plugin, with the keys its descriptor declares.
std::vector<config::PluginSection> plugin_sections_of(const plugin_host::PluginRegistry& plugins);

// Reads (without creating) every plugin in `dirs` into `plugins`; the message of each one that
// cannot be read goes to `unreadable`.
void read_plugin_declarations(const std::vector<std::string>& dirs,
                              plugin_host::PluginRegistry& plugins,
                              std::vector<std::string>& unreadable);

// `kode-gopherd --check-config FILE`: every issue in FILE, plugin sections checked against the
// descriptors of the plugins the daemon would load ([plugins] dirs), which are read but not
// created. Prints "error: ..." / "warning: ..." lines (or "FILE: OK") to `out`, and a plugin
// that cannot be read as a warning; returns 0, or 1 when there is an error. Never throws.
int check_config_with_plugins(const std::string& file, std::ostream& out);

}  // namespace kg
