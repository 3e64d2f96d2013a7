#include "module_tidy_host_service.hpp"

#include "sandbox_paths.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

plugin::TidyOutcome ModuleTidyHostService::tidy_module(plugin::SandboxHandle& sandbox,
                                                       std::span<const plugin::SourceFile> files,
                                                       std::uint32_t timeout_ms) {
  auto* call = dynamic_cast<CallHandle*>(&sandbox);
  if (call == nullptr) throw plugin::SandboxError("go mod tidy: not a sandbox handle of this daemon");
  const auto folder = call->host_folder(kSandboxExtraModcachePath);
  if (!folder) {
    throw plugin::SandboxError(std::string("go mod tidy: this sandbox has no host folder at ") +
                               kSandboxExtraModcachePath);
  }
  const TimedSandboxWait timed(call->wait());
  return tidier_.tidy(call->owner(), files, timeout_ms, *folder);
}

}  // namespace kg::sandbox
