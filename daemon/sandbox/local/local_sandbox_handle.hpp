// The SandboxHandle a runtime plugin gets for a local sandbox: the runtime API for files and
// commands, the sandbox's cgroup for each command's memory and pids limits (and OOM kills), and
// the binary cache, which the host fills by reading the built program straight out of the
// sandbox's private home (through /proc/<init>/root, confined to that root).
// Used by one call thread at a time.
#pragma once

#include <chrono>
#include <cstdint>

#include "binary_cache.hpp"
#include "local_sandbox.hpp"
#include "local_sandbox_layout.hpp"
#include "local_sandbox_policy.hpp"
#include "module_tidier.hpp"
#include "sandbox_client.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class LocalSandboxHandle final : public plugin::SandboxHandle {
 public:
  LocalSandboxHandle(LocalSandbox& sandbox, const LocalSandboxPolicy& policy,
                     const CallServices& services, plugin::Logger& logger)
      : sandbox_(sandbox),
        policy_(policy),
        cache_(services.binary_cache),
        tidier_(services.tidier),
        owner_(services.owner),
        canceller_(services.canceller),
        logger_(logger),
        wait_(services.wait) {}

  LocalSandboxHandle(const LocalSandboxHandle&) = delete;
  LocalSandboxHandle& operator=(const LocalSandboxHandle&) = delete;

  void replace_workdir(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    sandbox_.client().replace_workdir(files);
  }
  void upload_files(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    sandbox_.client().upload_files(files);
  }
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec) override;
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override {
    const TimedSandboxWait timed(wait_);
    return sandbox_.client().read_file(path, max_bytes);
  }
  std::optional<std::string> cached_binary(std::string_view key) override;
  // When the sandbox's user is another host uid than the daemon's, the built file is first made
  // the daemon's and read-only (so the program about to run cannot change it) and copied by the
  // cache's own thread, off the call's path; otherwise it is copied before this returns.
  void store_binary(std::string_view key, std::string_view sandbox_path) noexcept override;
  plugin::TidyOutcome tidy_module(std::span<const plugin::SourceFile> files,
                                  std::uint32_t timeout_ms) override {
    if (tidier_ == nullptr) throw plugin::SandboxError("This sandbox cannot tidy modules");
    const TimedSandboxWait timed(wait_);
    return tidier_->tidy(owner_, files, timeout_ms,
                         sandbox_.dir() + "/" + kSandboxModuleLinks);
  }

 private:

  LocalSandbox& sandbox_;
  const LocalSandboxPolicy& policy_;
  BinaryCache* cache_;  // null: no cache
  ModuleTidier* tidier_;  // null: no tidy
  std::string owner_;     // whose cache entries the call may use (CallServices::owner)
  net::RequestCanceller* canceller_;
  plugin::Logger& logger_;
  SandboxWait* wait_;  // null: not tallied
  bool built_clean_ = false;  // the last command was a successful clean-state build
};

}  // namespace kg::sandbox
