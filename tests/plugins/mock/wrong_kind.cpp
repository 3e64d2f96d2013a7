// A plugin of a kind this daemon does not know.
#include "fixed_runtime.hpp"

namespace {

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, static_cast<kg::plugin::PluginKind>(7), "wrong-kind", "1.0.0",
    "Mock plugin of kind 7", &kg::mock::create_available_runtime, nullptr};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
