// One sandbox on Kubernetes: a SandboxClaim of this daemon, bound to an agent-sandbox Sandbox
// (a pod running kode-gopher-sandbox), and the runtime-API client that reaches it through the
// sandbox-router or the pod's service. Destroying it deletes the claim (the controller then
// deletes the sandbox and its pod). The provider renews its lease while it lives.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "egress_proxy.hpp"
#include "interruptible_http_client.hpp"
#include "sandbox_client.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class KubernetesSandboxProvider;

// What the commands of the call in progress are given to reach the daemon's egress proxy:
// the variables (proxy URL with the call's credential, the trust bundle's path) and the bundle
// itself, which the handle uploads into the workdir. Inactive between calls.
struct CallEgress {
  bool active = false;
  std::vector<std::pair<std::string, std::string>> env;
  std::string trust_bundle;  // empty: no TLS terminated, no bundle to upload
};

class KubernetesSandbox final : public Sandbox {
 public:
  // `http` reaches this sandbox's server; the sandbox registers itself for lease renewal.
  KubernetesSandbox(KubernetesSandboxProvider& provider, std::string claim_name,
                    std::string sandbox_name, std::unique_ptr<net::HttpClient> http);
  ~KubernetesSandbox() override;
  KubernetesSandbox(const KubernetesSandbox&) = delete;
  KubernetesSandbox& operator=(const KubernetesSandbox&) = delete;

  // The claim's name (what the store records and what deleting releases).
  const std::string& id() const noexcept override { return claim_name_; }
  const std::string& sandbox_name() const noexcept { return sandbox_name_; }
  SandboxClient& client() noexcept { return client_; }
  // False once the claim or its sandbox is gone, being deleted, expired or not Ready (asks the
  // API server; when it cannot be reached, the sandbox is taken to be alive, and the call's own
  // error stands).
  bool alive() override;
  std::unique_ptr<CallHandle> call_handle(const CallServices& services) override;
  // With [kubernetes] egress_proxy_address, each call gets a credential of its own for the
  // daemon's egress gateway (egress_gateway.hpp) and its commands the proxy URL and the trust
  // bundle (CallEgress), so this sandbox's EgressProxy reads, unseals, refuses and records its
  // requests as a local sandbox's does. Without it, egress is the NetworkPolicy's alone, which
  // reports nothing per call, and a sealed call is told its program held only a placeholder.
  void begin_egress_call(EgressCallSetup setup) override;
  EgressCallReport end_egress_call() override;
  bool reads_api_requests() const noexcept override {
    return egress_ != nullptr && egress_->tls() != nullptr;
  }
  void interrupt() noexcept override;
  // The lease renewal found the claim gone (404): alive() is false from now on.
  void mark_gone() noexcept { gone_ = true; }

 private:
  bool sealed_call_ = false;
  KubernetesSandboxProvider& provider_;
  std::shared_ptr<EgressProxy> egress_;  // null without the daemon's egress
  std::string egress_user_;              // the call's gateway credential, while a call runs
  CallEgress call_egress_;
  std::string claim_name_;
  std::string sandbox_name_;
  InterruptibleHttpClient* interruptible_;  // owned by client_
  SandboxClient client_;
  std::atomic<bool> gone_{false};
};

}  // namespace kg::sandbox
