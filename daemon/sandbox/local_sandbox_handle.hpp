// The SandboxHandle a runtime plugin gets for a local sandbox: the runtime API for files and
// commands, plus the binary cache, which a local sandbox reaches through the host's folders
// (its home is a host folder; the cache is bound read-only into every sandbox).
// Used by one call thread at a time.
#pragma once

#include "binary_cache.hpp"
#include "module_tidier.hpp"
#include "sandbox_client.hpp"

namespace kg::sandbox {

class LocalSandboxHandle final : public plugin::SandboxHandle {
 public:
  LocalSandboxHandle(SandboxClient& client, std::string host_home, BinaryCache* cache,
                     ModuleTidier& tidier, net::RequestCanceller* canceller, plugin::Logger& logger)
      : client_(client),
        host_home_(std::move(host_home)),
        cache_(cache),
        tidier_(tidier),
        canceller_(canceller),
        logger_(logger) {}

  void reset_workdir() override { client_.reset_workdir(); }
  void upload_files(std::span<const plugin::SourceFile> files) override {
    client_.upload_files(files);
  }
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec) override {
    return client_.run_command(spec, canceller_);
  }
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override {
    return client_.read_file(path, max_bytes);
  }
  std::optional<std::string> cached_binary(std::string_view key) override;
  void store_binary(std::string_view key, std::string_view sandbox_path) noexcept override;
  plugin::TidyOutcome tidy_module(std::span<const plugin::SourceFile> files,
                                  std::uint32_t timeout_ms) override {
    return tidier_.tidy(files, timeout_ms);
  }

 private:
  SandboxClient& client_;
  std::string host_home_;
  BinaryCache* cache_;  // null: no cache
  ModuleTidier& tidier_;
  net::RequestCanceller* canceller_;
  plugin::Logger& logger_;
};

}  // namespace kg::sandbox
