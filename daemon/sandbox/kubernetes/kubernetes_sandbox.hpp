// One sandbox on Kubernetes: a SandboxClaim of this daemon, bound to an agent-sandbox Sandbox
// (a pod running kode-gopher-sandbox), and the runtime-API client that reaches it through the
// sandbox-router or the pod's service. Destroying it deletes the claim (the controller then
// deletes the sandbox and its pod). The provider renews its lease while it lives.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "interruptible_http_client.hpp"
#include "sandbox_client.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class KubernetesSandboxProvider;

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
  // Egress is filtered by the cluster's NetworkPolicy, which reports nothing per call. Nothing
  // unseals sealed credentials here (no egress proxy of kode-gopher), so a sealed call is told
  // its program held only a placeholder (docs/credentials.md).
  void begin_egress_call(EgressCallSetup setup) override { sealed_call_ = setup.sealed.has_value(); }
  bool reads_api_requests() const noexcept override { return false; }
  EgressCallReport end_egress_call() override {
    EgressCallReport report;
    if (sealed_call_) {
      report.refusals.push_back(
          "sealed credentials: Kubernetes sandboxes have no egress proxy that puts the real "
          "token in the placeholder's place, so the program held only a placeholder that no "
          "Google API accepts; set the credential plugin's mode = access-token on this daemon "
          "(docs/credentials.md)");
      sealed_call_ = false;
    }
    return report;
  }
  void interrupt() noexcept override;
  // The lease renewal found the claim gone (404): alive() is false from now on.
  void mark_gone() noexcept { gone_ = true; }

 private:
  bool sealed_call_ = false;
  KubernetesSandboxProvider& provider_;
  std::string claim_name_;
  std::string sandbox_name_;
  InterruptibleHttpClient* interruptible_;  // owned by client_
  SandboxClient client_;
  std::atomic<bool> gone_{false};
};

}  // namespace kg::sandbox
