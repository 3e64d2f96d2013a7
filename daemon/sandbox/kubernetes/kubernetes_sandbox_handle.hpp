// The SandboxHandle a runtime plugin gets for a Kubernetes sandbox: the runtime API over the
// router (or the pod's service), nothing of the host. The pod's files are not the host's, so
// there is no binary cache (every build runs in the pod, against the image's prewarmed build
// cache), and `go mod tidy` for imports outside the curated lockfile is not offered yet: the
// host's module cache, which tidy fills, is not the pod's. Used by one call thread at a time.
#pragma once

#include <chrono>

#include "sandbox_client.hpp"
#include "runtime_plugin.hpp"  // InvalidInputError
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class KubernetesSandboxHandle final : public plugin::SandboxHandle {
 public:
  KubernetesSandboxHandle(SandboxClient& client, const CallServices& services)
      : client_(client), canceller_(services.canceller), wait_(services.wait) {}

  void replace_workdir(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    client_.replace_workdir(files);
  }
  void upload_files(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    client_.upload_files(files);
  }
  plugin::CommandOutcome run_command(const plugin::CommandSpec& spec) override {
    const TimedSandboxWait timed(wait_);
    return client_.run_command(spec, canceller_);
  }
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override {
    const TimedSandboxWait timed(wait_);
    return client_.read_file(path, max_bytes);
  }
  std::optional<std::string> cached_binary(std::string_view) override { return std::nullopt; }
  void store_binary(std::string_view, std::string_view) noexcept override {}
  plugin::TidyOutcome tidy_module(std::span<const plugin::SourceFile>, std::uint32_t) override {
    // The caller's to change (its imports), not a failure of the sandbox.
    throw plugin::InvalidInputError(
        "Imports outside the curated lockfile need go mod tidy, which the kubernetes sandbox "
        "provider does not offer yet (the pod has no network and the host's module cache is not "
        "the pod's): use the curated lockfile's modules, or the local provider");
  }

 private:

  SandboxClient& client_;
  net::RequestCanceller* canceller_;
  SandboxWait* wait_;
};

}  // namespace kg::sandbox
