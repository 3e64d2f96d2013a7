// The embedded default provider: opens sandboxes as bubblewrap processes on this machine
// (local_sandbox_layout.hpp says what each one sees). Owned by Instance; open() is called from
// call threads concurrently.
#pragma once

#include <memory>
#include <string>

#include "host_services.hpp"
#include "local_sandbox.hpp"
#include "local_sandbox_layout.hpp"
#include "process_spawner.hpp"

namespace kg::sandbox {

class LocalSandboxProvider {
 public:
  LocalSandboxProvider(LocalSandboxLayout layout, plugin::Logger& logger);

  // Starts a sandbox and waits until it answers. Throws plugin::SandboxError (with nested
  // causes) when bubblewrap or the server inside cannot start.
  std::unique_ptr<LocalSandbox> open(BaseCacheAccess access = BaseCacheAccess::layered);

  // At daemon start: kills what is left of sandboxes of a daemon that died, and removes their
  // folders. Returns how many it found.
  int reap_orphans();

  const LocalSandboxLayout& layout() const noexcept { return layout_; }

 private:
  LocalSandboxLayout layout_;
  plugin::Logger& logger_;
  ProcessSpawner spawner_;
};

}  // namespace kg::sandbox
