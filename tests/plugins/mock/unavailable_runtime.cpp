// A valid runtime plugin that reports it cannot work on this machine.
#include "fixed_runtime.hpp"

namespace {

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices&) {
  return new kg::mock::FixedRuntime(kg::plugin::Availability{false, "no Go toolchain on PATH"});
}

constexpr const char* kRuntimeNames[] = {"unavailable-runtime"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "unavailable-runtime", "0.9.0",
    "Mock runtime that is never available", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
