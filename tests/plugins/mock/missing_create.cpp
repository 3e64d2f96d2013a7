// A runtime plugin that forgot its create function.
#include "plugin_abi.hpp"

namespace {

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "missing-create", "1.0.0",
    "Mock runtime without create_runtime", nullptr, nullptr};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
