// A runtime plugin built against another plugin ABI (a number this daemon does not speak).
#include "fixed_runtime.hpp"

namespace {

const kg::plugin::PluginDescriptor descriptor{
    20200101, kg::plugin::PluginKind::runtime, "wrong-abi", "1.0.0",
    "Mock runtime from another ABI", &kg::mock::create_available_runtime, nullptr};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
