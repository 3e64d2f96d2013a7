// The SandboxHandle a runtime plugin gets for a local sandbox: the runtime API for files and
// commands, the sandbox's cgroup for each command's memory and pids limits (and OOM kills), and
// the binary cache, which the host fills by reading the built program straight out of the
// sandbox's private home (through /proc/<init>/root, confined to that root).
// Used by one call thread at a time.
#pragma once

#include "binary_cache.hpp"
#include "local_sandbox.hpp"
#include "local_sandbox_provider.hpp"
#include "module_tidier.hpp"
#include "sandbox_client.hpp"

namespace kg::sandbox {

class LocalSandboxHandle final : public plugin::SandboxHandle {
 public:
  LocalSandboxHandle(LocalSandbox& sandbox, const LocalSandboxPolicy& policy, BinaryCache* cache,
                     ModuleTidier& tidier, net::RequestCanceller* canceller, plugin::Logger& logger)
      : sandbox_(sandbox),
        policy_(policy),
        cache_(cache),
        tidier_(tidier),
        canceller_(canceller),
        logger_(logger) {}

  void reset_workdir() override { sandbox_.client().reset_workdir(); }
  void upload_files(std::span<const plugin::SourceFile> files) override {
    sandbox_.client().upload_files(files);
  }
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec) override;
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override {
    return sandbox_.client().read_file(path, max_bytes);
  }
  std::optional<std::string> cached_binary(std::string_view key) override;
  void store_binary(std::string_view key, std::string_view sandbox_path) noexcept override;
  plugin::TidyOutcome tidy_module(std::span<const plugin::SourceFile> files,
                                  std::uint32_t timeout_ms) override {
    return tidier_.tidy(files, timeout_ms);
  }

 private:
  LocalSandbox& sandbox_;
  const LocalSandboxPolicy& policy_;
  BinaryCache* cache_;  // null: no cache
  ModuleTidier& tidier_;
  net::RequestCanceller* canceller_;
  plugin::Logger& logger_;
};

}  // namespace kg::sandbox
