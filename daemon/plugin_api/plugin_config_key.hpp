// A key a plugin reads from its own config section ([<plugin-name>] in the INI file), declared in
// its PluginDescriptor. The daemon has no table of plugin keys: it learns them from what it
// loads, warns about a key in a plugin's section that the plugin does not declare, and
// `kode-gopherd --describe-config` documents them (docs/configuration.md, "Plugin sections").
// The plugin itself still checks the values it reads when it starts.
// Plain data in the plugin's static storage; nothing here is owned or freed by the daemon.
#pragma once

#include <cstdint>

namespace kg::plugin {

enum class ConfigKeyType : std::uint32_t {
  text = 1,           // one line of any text (a URL, a name, a list)
  boolean = 2,        // true | false
  integer = 3,        // plain decimal digits from `min` to `max`
  choice = 4,         // exactly one of `choices`
  absolute_path = 5,  // an absolute path ("~/" means $HOME)
};

struct PluginConfigKey {
  const char* name;          // lowercase, e.g. "fast_path"
  ConfigKeyType type;
  const char* default_text;  // the default as the file would spell it, or what happens unset
  const char* help;          // one line: what the key changes
  const char* const* choices = nullptr;  // choice: the allowed values
  std::uint32_t choice_count = 0;
  std::uint64_t min = 0;  // integer
  std::uint64_t max = 0;  // integer
};

}  // namespace kg::plugin
