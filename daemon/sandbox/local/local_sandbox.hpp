// One running local sandbox: a bubblewrap process with kode-gopher-sandbox inside, its private
// state folder on the host, and the client that talks to it. Stopping it (or destroying it)
// kills every process in it and removes the folder. Used by one session at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "egress_network.hpp"
#include "host_services.hpp"
#include "local_sandbox_policy.hpp"
#include "sandbox_cgroup.hpp"
#include "sandbox_client.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class EgressProxy;  // egress_proxy.hpp (kept out of this header: it brings Poco::Net's server)

class LocalSandbox final : public Sandbox {
 public:
  // init_pid: the sandbox's first process (pid 1 inside), as bubblewrap reported it; cgroup may
  // be null (limits unavailable).
  // host_folders: the in-sandbox paths of its host folders (LocalSandboxLayout::host_folders).
  LocalSandbox(std::string id, std::string dir, pid_t bwrap_pid, pid_t init_pid,
               std::unique_ptr<SandboxCgroup> cgroup, const LocalSandboxPolicy& policy,
               std::vector<std::string> host_folders, plugin::Logger& logger);
  ~LocalSandbox() override;
  LocalSandbox(const LocalSandbox&) = delete;
  LocalSandbox& operator=(const LocalSandbox&) = delete;

  const std::string& id() const noexcept override { return id_; }
  const std::string& dir() const noexcept { return dir_; }
  pid_t pid() const noexcept { return bwrap_pid_; }
  SandboxClient& client() noexcept { return client_; }
  // The sandbox's root as the host reaches it (/proc/<init>/root): private tmpfs folders
  // such as the home are only visible there. Resolve paths under it with RESOLVE_IN_ROOT.
  std::string root_path() const { return "/proc/" + std::to_string(init_pid_) + "/root"; }
  SandboxCgroup* cgroup() noexcept { return cgroup_.get(); }
  // Keeps the sandbox's outbound network (network = egress) until the sandbox stops.
  void keep_network(EgressNetwork network) { network_.emplace(std::move(network)); }
  // Keeps the sandbox's egress proxy (network = allowlist) until the sandbox stops.
  void keep_egress_proxy(std::unique_ptr<EgressProxy> proxy);
  // Hand the call's setup to the egress proxy, and take what it refused and forwarded during
  // the call (nothing without a proxy). A sealed call in a sandbox with outbound network but no
  // proxy (network = egress) gets a warning: its placeholder token opens nothing.
  void begin_egress_call(EgressCallSetup setup) override;
  EgressCallReport end_egress_call() override;
  // With network = allowlist and the daemon's egress CA: the proxy reads Google API requests.
  bool reads_api_requests() const noexcept override {
    return egress_proxy_ != nullptr && policy_.egress_tls != nullptr;
  }
  // A LocalSandboxHandle: the sandbox's cgroup limits per command, its host folders, files
  // taken straight from the sandbox's root. The first handle for an owner makes the sandbox that
  // owner's for good; one for another owner throws plugin::SandboxError, so no sandbox ever
  // holds what the host put in its folders for two users (docs/security.md).
  std::unique_ptr<CallHandle> call_handle(const CallServices& services) override;
  // The host path of the host folder seen inside at sandbox_path; nullopt when it has none there.
  std::optional<std::string> host_folder(std::string_view sandbox_path) const;
  // Kills the sandbox's processes, so a command in flight fails at once.
  void interrupt() noexcept override;

  // False once the bubblewrap process has exited (the sandbox died or was stopped).
  bool alive() override;
  // Waits until the server inside answers; throws plugin::SandboxError with the sandbox's own
  // log lines when it died or did not answer in time.
  void wait_until_ready(std::chrono::milliseconds timeout);
  // Kills every process in the sandbox and removes its folder. Idempotent; never throws.
  void stop() noexcept;

 private:
  std::string log_tail() const;

  std::string id_;
  std::string dir_;
  pid_t bwrap_pid_;
  pid_t init_pid_;
  std::unique_ptr<SandboxCgroup> cgroup_;
  const LocalSandboxPolicy& policy_;
  std::optional<EgressNetwork> network_;
  std::unique_ptr<EgressProxy> egress_proxy_;
  bool sealed_call_without_proxy_ = false;  // the call is sealed, and nothing will unseal it
  bool reaped_ = false;
  std::vector<std::string> host_folders_;
  std::optional<std::string> owner_;  // set by the first call_handle() for an owner
  plugin::Logger& logger_;
  SandboxClient client_;
};

}  // namespace kg::sandbox
