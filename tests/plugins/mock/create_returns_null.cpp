// A runtime plugin whose create function returns no object.
#include "fixed_runtime.hpp"

namespace {

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices&) { return nullptr; }

constexpr const char* kRuntimeNames[] = {"create-returns-null"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "create-returns-null", "1.0.0",
    "Mock runtime whose create returns null", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
