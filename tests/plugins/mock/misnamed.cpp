// A valid runtime plugin in the file misnamed.so whose descriptor names another plugin.
#include "fixed_runtime.hpp"

namespace {

constexpr const char* kRuntimeNames[] = {"other-name"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "other-name", "1.0.0",
    "Mock runtime in the wrong file", &kg::mock::create_available_runtime, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
