// The prewarmed Go build cache every sandbox reads (read-only, under a private writable layer),
// and the module cache with the curated lockfile's modules. The modules are downloaded on the
// host (the lockfile is ours; sandboxes have no network); the build cache is filled by
// compiling the standard library and the curated packages inside a sandbox whose view of the
// base is writable, so the cache keys match what later sandboxes compute exactly. Stamp files
// record what each was made for; current caches make ensure() a no-op.
//
// ensure() may be called from many call threads at once: one builds, the others wait.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "host_services.hpp"
#include "local_sandbox_provider.hpp"

namespace kg::sandbox {

// A file of the curated lockfile (go.mod, go.sum), as every sandbox sees it; "" when missing.
std::string lockfile_text(const std::string& lockfile_dir, const std::string& name);

class BaseCache {
 public:
  BaseCache(LocalSandboxProvider& provider, std::string go_version, plugin::Logger& logger);

  // True when the stamps say the caches were built for this toolchain, lockfile and recipe.
  bool current() const;
  // True when the module cache holds this lockfile's modules.
  bool modules_current() const;
  // Builds the cache unless it is current (checked once: after that it is remembered). progress
  // receives one line per step.
  // Throws plugin::SandboxError (nested) when the build fails.
  void ensure(const std::function<void(std::string_view)>& progress);

  std::string expected_stamp() const;
  // sha256 (hex) of the lockfile's go.mod, go.sum and curated.go.
  std::string lockfile_digest() const;

 private:
  LocalSandboxProvider& provider_;
  std::string go_version_;
  plugin::Logger& logger_;
  std::mutex build_mutex_;
  std::atomic<bool> known_current_{false};
};

}  // namespace kg::sandbox
