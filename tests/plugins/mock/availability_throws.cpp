// A runtime plugin that is created but whose availability check throws.
#include <stdexcept>

#include "fixed_runtime.hpp"

namespace {

class CrashingProbe final : public kg::plugin::RuntimePlugin {
 public:
  kg::plugin::Availability check_availability() override {
    throw std::runtime_error("go version probe crashed");
  }
  kg::plugin::ExecuteResult execute(const kg::plugin::ExecuteRequest&,
                                    kg::plugin::SandboxHandle&,
                                    kg::plugin::ProgressSink&) override {
    return {};
  }
};

kg::plugin::RuntimePlugin* create(kg::plugin::HostServices&) { return new CrashingProbe; }

constexpr const char* kRuntimeNames[] = {"availability-throws"};
const kg::plugin::PluginDescriptor descriptor{
    kg::plugin::kAbiVersion, kg::plugin::PluginKind::runtime, "availability-throws", "1.0.0",
    "Mock runtime whose availability check throws", &create, nullptr, kRuntimeNames, 1};

}  // namespace

KG_EXPORT_PLUGIN(descriptor)
