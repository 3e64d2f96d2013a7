// Finds plugin shared objects by name in the configured plugin directories and loads them.
//
// A plugin is the file `<dir>/<name>.so` with `<name>` matching ^[a-z0-9][a-z0-9-]*$. Names are
// resolved only inside the given directories (first directory wins), and the file's real path
// must stay inside the directory it was found in, so neither a crafted name nor a symlink can
// make the daemon load code from elsewhere. Loading is dlopen(RTLD_NOW | RTLD_LOCAL), then the
// entry symbol, the descriptor checks (ABI version, kind, create function, name), the create
// call and, for runtime plugins, the availability check.
//
// Used by the daemon's Instance at start-up, on the start-up thread (see load_all()). The object
// holds only the directory list; it does not remember what it loaded.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_services.hpp"
#include "loaded_plugin.hpp"

namespace kg::plugin_host {

class PluginLoader {
 public:
  explicit PluginLoader(std::vector<std::string> dirs) : dirs_(std::move(dirs)) {}

  // The names of the `*.so` files in the plugin directories, sorted and without duplicates.
  // Missing or unreadable directories are skipped. A file whose name is not a valid plugin name
  // is listed too, so that load() (and load_all()'s log line) says what is wrong with it.
  std::vector<std::string> discover() const;

  // Loads plugin `name` and creates its object with `host`, which must outlive the returned
  // plugin (the plugin may keep a reference to it). A plugin that reports itself unavailable
  // is returned with state `unavailable`, not thrown. Throws PluginLoadError for every other
  // failure, with a message naming the plugin, the file and the reason.
  LoadedPlugin load(std::string_view name, plugin::HostServices& host) const;

  // Only what plugin `name` declares (name, version, kind, runtime names, config keys), without
  // creating it: for `kode-gopherd --check-config`, which checks the config's plugin sections
  // against the plugins it would load. The library stays mapped, as after load(). Throws
  // PluginLoadError like load() does up to the create call.
  LoadedPlugin read_declarations(std::string_view name) const;

  const std::vector<std::string>& dirs() const noexcept { return dirs_; }

 private:
  struct ResolvedFile {
    std::string path;                 // "<dir>/<name>.so", for messages
    std::filesystem::path real_path;  // the canonical file, what dlopen() opens
  };

  // Throws PluginLoadError for an invalid name, a name found nowhere, or an escaping symlink.
  ResolvedFile resolve(std::string_view name) const;

  std::vector<std::string> dirs_;
};

// Whether `name` matches ^[a-z0-9][a-z0-9-]*$.
bool is_valid_plugin_name(std::string_view name) noexcept;

}  // namespace kg::plugin_host
