// The binary cache as the compiled-go plugin reaches it (plugin::BinaryCacheService, through
// HostServices): BinaryCache's entries of the call's owner, served into the call's sandbox
// through its host folder at kSandboxBinaryCachePath (a hard link per hit), and filled from the
// file a clean build left in the sandbox (CallHandle::take_file). So the sandbox never sees the
// cache, only its own owner's hits (docs/security.md, "Caches between users").
//
// Offered only with a provider whose sandboxes receive host folders (Instance). Thread-safe as
// BinaryCache is; each call uses its own handle.
#pragma once

#include "binary_cache.hpp"
#include "go_host_services.hpp"
#include "host_services.hpp"

namespace kg::sandbox {

class BinaryCacheHostService final : public plugin::BinaryCacheService {
 public:
  BinaryCacheHostService(BinaryCache& cache, plugin::Logger& logger)
      : cache_(cache), logger_(logger) {}

  // A miss for a handle the daemon did not make, or whose sandbox has no such host folder; a
  // link that cannot be made is logged, and a miss.
  std::optional<std::string> cached_binary(plugin::SandboxHandle& sandbox,
                                           std::string_view key) noexcept override;
  bool holds_binary(plugin::SandboxHandle& sandbox, std::string_view key) noexcept override;
  // A frozen file (the sandbox's user is another host uid) is copied by the cache's own thread,
  // off the call's path; otherwise it is copied before this returns, while no command runs.
  void store_binary(plugin::SandboxHandle& sandbox, std::string_view key,
                    std::string_view sandbox_path) noexcept override;

 private:
  BinaryCache& cache_;
  plugin::Logger& logger_;
};

}  // namespace kg::sandbox
