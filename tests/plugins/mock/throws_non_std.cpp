// A runtime plugin whose create function throws something that is not a std::exception.
#include "fixed_runtime.hpp"

namespace {

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices&) { throw 42; }

constexpr const char* kRuntimeNames[] = {"throws-non-std"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "throws-non-std", "1.0.0",
    "Mock runtime that throws an int", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
