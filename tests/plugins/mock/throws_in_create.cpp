// A runtime plugin whose create function fails with a nested error chain.
#include <exception>
#include <stdexcept>

#include "fixed_runtime.hpp"

namespace {

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices&) {
  try {
    throw std::runtime_error("cannot read config");
  } catch (...) {
    std::throw_with_nested(std::runtime_error("compiled-go setup failed"));
  }
}

constexpr const char* kRuntimeNames[] = {"throws-in-create"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "throws-in-create", "1.0.0",
    "Mock runtime that cannot start", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
