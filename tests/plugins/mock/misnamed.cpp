// A valid runtime plugin in the file misnamed.so whose descriptor names another plugin.
#include "fixed_runtime.hpp"

namespace {

const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "other-name", "1.0.0",
    "Mock runtime in the wrong file", &kg::mock::create_available_runtime, nullptr};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
