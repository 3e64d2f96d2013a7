// A runtime plugin for the loader tests: execute() returns the same result whatever it is asked,
// and availability is fixed at construction. Compiled into each mock plugin that needs one, so
// every mock is a complete, valid plugin except for the one defect it exists to show.
#pragma once

#include <string>
#include <utility>

#include "host_services.hpp"
#include "plugin_abi.hpp"
#include "runtime_plugin.hpp"

namespace kg::mock {

class FixedRuntime final : public plugin::RuntimePlugin {
 public:
  explicit FixedRuntime(plugin::Availability availability)
      : availability_(std::move(availability)) {}

  plugin::Availability check_availability() override { return availability_; }

  plugin::ExecuteResult execute(const plugin::ExecuteRequest&, plugin::SandboxHandle&,
                                plugin::ProgressSink& progress) override {
    progress.phase_started(plugin::Phase::run, "mock run");
    plugin::ExecuteResult result;
    result.phase = plugin::Phase::run;
    result.mode = plugin::Mode::verbatim;
    result.status = plugin::Status::ok;
    result.exit_code = 0;
    result.run_us = 7000;
    result.stdout_text = "mock\n";
    return result;
  }

 private:
  plugin::Availability availability_;
};

inline plugin::RuntimePlugin* create_available_runtime(plugin::HostServices&) {
  return new FixedRuntime(plugin::Availability{true, ""});
}

}  // namespace kg::mock
