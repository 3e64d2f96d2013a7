// go mod tidy as the compiled-go plugin reaches it (plugin::ModuleTidyService, through
// HostServices): ModuleTidier runs it on the host in the call's owner's module cache, and links
// the modules the tidied go.sum names into the call's sandbox's host folder at
// kSandboxExtraModcachePath, so the sandbox reads its own owner's modules only
// (docs/security.md, "Caches between users"). The time it takes counts as the call's sandbox wait.
//
// Offered only with a provider whose sandboxes receive host folders (Instance). Thread-safe as
// ModuleTidier is; each call uses its own handle.
#pragma once

#include "go_host_services.hpp"
#include "module_tidier.hpp"

namespace kg::sandbox {

class ModuleTidyHostService final : public plugin::ModuleTidyService {
 public:
  explicit ModuleTidyHostService(ModuleTidier& tidier) : tidier_(tidier) {}

  // Throws plugin::SandboxError for a handle the daemon did not make or whose sandbox has no
  // such host folder, and what ModuleTidier::tidy throws.
  plugin::TidyOutcome tidy_module(plugin::SandboxHandle& sandbox,
                                  std::span<const plugin::SourceFile> files,
                                  std::uint32_t timeout_ms) override;

 private:
  ModuleTidier& tidier_;
};

}  // namespace kg::sandbox
