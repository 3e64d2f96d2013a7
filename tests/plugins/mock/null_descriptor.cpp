// A plugin whose entry symbol returns no descriptor.
#include "plugin_abi.hpp"

extern "C" __attribute__((visibility("default"))) const kg::plugin::PluginDescriptor*
kode_gopher_plugin_descriptor() noexcept {
  return nullptr;
}
