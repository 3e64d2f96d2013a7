// A runtime plugin whose descriptor offers no runtime name, so no call could ever reach it.
#include "fixed_runtime.hpp"

namespace {

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "no-runtime-name", "1.0.0",
    "Mock runtime that names no runtime", &kg::mock::create_available_runtime, nullptr};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
