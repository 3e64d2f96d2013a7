// The one error PluginLoader throws. Its message names the plugin, the file and what is wrong,
// and is complete on its own (nothing is nested in it): load_all() logs it as it is, and
// `kode-gopher plugins` / the daemon log show it to the person who installed the plugin.
#pragma once

#include <stdexcept>

namespace kg::plugin_host {

class PluginLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kg::plugin_host
