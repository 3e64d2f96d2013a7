// The CallHandle a runtime plugin gets for a Kubernetes sandbox: the runtime API over the
// router (or the pod's service), nothing of the host. The pod's files are not the host's, so it
// has no host folders and no file can be taken out of it from the host: host services that need
// them are not offered with this provider (KubernetesSandboxProvider::gives_host_folders).
// With the daemon's egress (CallEgress active), every command of the call gets the proxy
// variables and, before the first command after the workdir was replaced, the trust bundle is
// uploaded to /app/.kode-gopher/ca-bundle.pem (the pod's root filesystem is read-only).
// Used by one call thread at a time.
#pragma once

#include <chrono>

#include "kubernetes_sandbox.hpp"
#include "sandbox_client.hpp"
#include "sandbox_paths.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class KubernetesSandboxHandle final : public CallHandle {
 public:
  KubernetesSandboxHandle(SandboxClient& client, const CallServices& services,
                          const CallEgress& egress)
      : client_(client),
        egress_(egress),
        owner_(services.owner.value_or(std::string())),
        canceller_(services.canceller),
        output_(services.output),
        wait_(services.wait) {}

  void replace_workdir(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    bundle_uploaded_ = false;
    client_.replace_workdir(files);
  }
  void upload_files(std::span<const plugin::SourceFile> files) override {
    const TimedSandboxWait timed(wait_);
    client_.upload_files(files);
  }
  plugin::CommandOutcome run_command(const plugin::CommandSpec& command) override {
    built_clean_ = false;
    const TimedSandboxWait timed(wait_);
    plugin::CommandSpec spec = command;
    if (egress_.active) {
      if (!egress_.trust_bundle.empty() && !bundle_uploaded_) {
        const plugin::SourceFile bundle{kPodCaBundleFile, egress_.trust_bundle};
        client_.upload_files({&bundle, 1});
        bundle_uploaded_ = true;
      }
      // The proxy variables first, so a command may still name its own NO_PROXY.
      auto env = egress_.env;
      for (auto& variable : spec.env) {
        std::erase_if(env, [&](const auto& set) { return set.first == variable.first; });
        env.push_back(std::move(variable));
      }
      spec.env = std::move(env);
    }
    auto outcome = client_.run_command(spec, canceller_, output_);
    built_clean_ = spec.clean_state && outcome.exit_code == 0 && !outcome.timed_out;
    return outcome;
  }
  std::optional<std::string> read_file(std::string_view path, std::uint64_t max_bytes) override {
    const TimedSandboxWait timed(wait_);
    return client_.read_file(path, max_bytes);
  }

  std::optional<std::string> folder_tar(std::string_view workdir_path,
                                        const FolderTarBounds& bounds) override {
    const TimedSandboxWait timed(wait_);
    return client_.folder_tar(workdir_path, bounds);
  }

  const std::string& owner() const noexcept override { return owner_; }
  SandboxWait* wait() const noexcept override { return wait_; }
  std::optional<std::string> host_folder(std::string_view) override { return std::nullopt; }
  bool last_command_built_clean() const noexcept override { return built_clean_; }
  std::optional<TakenFile> take_file(std::string_view) override { return std::nullopt; }

 private:
  SandboxClient& client_;
  const CallEgress& egress_;
  bool bundle_uploaded_ = false;  // since the workdir was last replaced
  std::string owner_;
  net::RequestCanceller* canceller_;
  OutputSink* output_;
  SandboxWait* wait_;
  bool built_clean_ = false;  // the last command was a successful clean-state build
};

}  // namespace kg::sandbox
