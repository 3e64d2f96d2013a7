// The embedded default provider: opens sandboxes as bubblewrap processes on this machine
// (local_sandbox_layout.hpp says what each one sees). Owned by Instance; open() is called from
// call threads concurrently.
//
// Every sandbox gets, beyond its namespaces: the seccomp filter (seccomp_filter.hpp), a cgroup
// with memory and pids limits (sandbox_cgroup.hpp, when the machine allows), and — when the
// daemon runs as root — an unprivileged host uid for everything inside (host_uid).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "egress_allowlist.hpp"
#include "host_services.hpp"
#include "local_sandbox.hpp"
#include "local_sandbox_layout.hpp"
#include "local_sandbox_policy.hpp"
#include "process_spawner.hpp"
#include "sandbox_cgroup.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class LocalSandboxProvider final : public SandboxProvider {
 public:
  // Throws plugin::SandboxError when a root daemon's sandbox uid cannot read what is bound in,
  // or two host_folders would share a folder.
  LocalSandboxProvider(LocalSandboxLayout layout, plugin::Logger& logger,
                       LocalSandboxPolicy policy = {});

  std::string_view name() const noexcept override { return "local"; }
  // A sandbox reading the base build cache under its own writable layer.
  std::unique_ptr<Sandbox> open(const SandboxRequest& request) override;
  // Starts a sandbox and waits until it answers. Throws plugin::SandboxError (with nested
  // causes) when bubblewrap or the server inside cannot start. BaseCacheAccess::writable is the
  // prewarm's.
  std::unique_ptr<LocalSandbox> open_local(BaseCacheAccess access);

  // At daemon start: kills what is left of sandboxes of a daemon that died, and removes their
  // folders (with the links to cache entries they held). Returns how many it found.
  int reap_orphans() override;

  const LocalSandboxLayout& layout() const noexcept { return layout_; }
  const LocalSandboxPolicy& policy() const noexcept { return policy_; }
  // What isolation is in force, one line each (for the log and /v1/health).
  std::vector<std::string> isolation_summary() const override;
  // Choices in force that weaken isolation (host_uid = 0), for the log and /v1/health.
  const std::vector<std::string>& warnings() const noexcept override { return warnings_; }
  // Each sandbox gets the layout's host_folders, bound read-only from its own state folder.
  bool gives_host_folders() const noexcept override { return true; }

 private:
  LocalSandboxLayout layout_;
  plugin::Logger& logger_;
  LocalSandboxPolicy policy_;
  std::string trust_bundle_;  // what ca-bundle.pem holds (layout_.egress_ca)
  std::unique_ptr<CgroupHierarchy> cgroups_;
  std::vector<std::uint8_t> seccomp_program_;
  std::optional<uid_t> host_uid_;  // in force: set only when running as root and usable
  std::string host_uid_note_;
  std::vector<std::string> warnings_;
  ProcessSpawner spawner_;
};

}  // namespace kg::sandbox
