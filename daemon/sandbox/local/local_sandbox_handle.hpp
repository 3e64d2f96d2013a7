// The CallHandle a runtime plugin gets for a local sandbox: the runtime API for files and
// commands, the sandbox's cgroup for each command's memory and pids limits (and OOM kills), its
// host folders, and files taken straight out of the sandbox's private home (through
// /proc/<init>/root, confined to that root) for host services such as the Go side's binary cache.
// Used by one call thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "local_sandbox.hpp"
#include "local_sandbox_policy.hpp"
#include "sandbox_client.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class LocalSandboxHandle final : public CallHandle {
 public:
  LocalSandboxHandle(LocalSandbox& sandbox, const LocalSandboxPolicy& policy,
                     const CallServices& services, plugin::Logger& logger)
      : sandbox_(sandbox),
        policy_(policy),
        owner_(services.owner),
        canceller_(services.canceller),
        output_(services.output),
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

  std::optional<std::string> folder_tar(std::string_view workdir_path,
                                        const FolderTarBounds& bounds) override {
    const TimedSandboxWait timed(wait_);
    return sandbox_.client().folder_tar(workdir_path, bounds);
  }

  const std::string& owner() const noexcept override { return owner_ ? *owner_ : kNoOwner; }
  SandboxWait* wait() const noexcept override { return wait_; }
  std::optional<std::string> host_folder(std::string_view sandbox_path) override;
  bool last_command_built_clean() const noexcept override { return built_clean_; }
  // When the sandbox's user is another host uid than the daemon's, the file is first made the
  // daemon's and read-only (frozen), so the program about to run cannot change it.
  std::optional<TakenFile> take_file(std::string_view sandbox_path) override;

 private:
  inline static const std::string kNoOwner;

  LocalSandbox& sandbox_;
  const LocalSandboxPolicy& policy_;
  std::optional<std::string> owner_;  // CallServices::owner: nullopt for no one's call
  net::RequestCanceller* canceller_;
  OutputSink* output_;
  plugin::Logger& logger_;
  SandboxWait* wait_;  // null: not tallied
  bool built_clean_ = false;  // the last command was a successful clean-state build
};

}  // namespace kg::sandbox
