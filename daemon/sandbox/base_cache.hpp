// The prewarmed Go build cache every sandbox reads (read-only, under a private writable layer).
// Built once per toolchain by compiling the standard library inside a sandbox whose view of the
// base is writable, so the cache keys match what later sandboxes compute exactly. A stamp file
// records what it was built for; a current cache makes ensure() a no-op.
//
// ensure() may be called from many call threads at once: one builds, the others wait.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "host_services.hpp"
#include "local_sandbox_provider.hpp"

namespace kg::sandbox {

class BaseCache {
 public:
  BaseCache(LocalSandboxProvider& provider, std::string go_version, plugin::Logger& logger);

  // True when the stamp says the cache was built for this toolchain and recipe.
  bool current() const;
  // Builds the cache unless it is current. progress receives one line per step.
  // Throws plugin::SandboxError (nested) when the build fails.
  void ensure(const std::function<void(std::string_view)>& progress);

  std::string expected_stamp() const;

 private:
  LocalSandboxProvider& provider_;
  std::string go_version_;
  plugin::Logger& logger_;
  std::mutex build_mutex_;
};

}  // namespace kg::sandbox
