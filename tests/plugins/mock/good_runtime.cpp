// A valid runtime plugin. It logs through the host's logger when created, so the tests can see
// that the loader hands the host services over.
#include "fixed_runtime.hpp"

namespace {

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices& host) {
  host.logger().log(kg::plugin::LogLevel::debug, "good-runtime: created");
  return new kg::mock::FixedRuntime(kg::plugin::Availability{true, ""});
}

constexpr const char* kRuntimeNames[] = {"good-runtime"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "good-runtime", "1.2.3",
    "Mock runtime that always prints mock", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
