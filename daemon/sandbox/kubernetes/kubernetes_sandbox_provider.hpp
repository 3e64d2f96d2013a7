// The kubernetes provider ([sandbox] provider = kubernetes): each sandbox is a SandboxClaim
// against an agent-sandbox SandboxWarmPool (docs/contracts.md §6). open() creates the claim, waits
// for it to bind a Sandbox and for that Sandbox to be Ready (and to answer through the router),
// reporting progress; a thread of its own renews every live claim's lease every lease/3;
// reap_orphans() deletes the claims labelled with this daemon's identity that no live sandbox
// owns (a crashed predecessor's). Isolation is the pod's: see isolation_summary().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "egress_allowlist.hpp"
#include "egress_gateway.hpp"
#include "egress_tls.hpp"
#include "host_services.hpp"
#include "http_client.hpp"
#include "kube_client.hpp"
#include "sandbox_claim.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

class KubernetesSandbox;

// Egress through the daemon (docs/kubernetes.md, "Egress through the daemon"): the daemon's
// egress proxy on a TCP listener the sandbox pods reach, one EgressProxy per sandbox behind it.
struct KubernetesEgressOptions {
  EgressGatewayOptions listen;  // where the daemon listens
  // host:port the pods reach that listener at (a Service's name in the cluster).
  std::string address;
  EgressAllowlist allowlist;
  std::shared_ptr<EgressTls> tls;  // sealed credentials and the API policy: TLS terminated
};

struct KubernetesProviderOptions {
  std::string kubeconfig;  // empty: $KUBECONFIG, ~/.kube/config, else in-cluster
  std::string context;     // empty: the kubeconfig's current context
  std::string namespace_;  // empty: the context's (or service account's), else "default"
  std::string warm_pool = "kode-gopher-pool";
  // host:port of the sandbox-router; empty: straight to each sandbox's service on port 8888
  // (in-cluster only).
  std::string router_host;
  std::uint16_t router_port = 0;
  std::string daemon_id;  // a DNS-1123 label; labels every claim
  std::chrono::seconds claim_timeout{300};
  std::chrono::seconds lease{600};
  std::chrono::milliseconds api_timeout{30'000};  // each API server request
  std::chrono::milliseconds poll_interval{500};   // while a claim binds and its sandbox starts
  // What the sandbox image must say it was built from (its /opt/kode-gopher/kode-gopher-image:
  // the Go version and the lockfile digest, as sandbox/Dockerfile writes them), so that the
  // runtime plugins' toolchain and lockfile are the pod's. Empty: not checked.
  std::string expected_image;
  // Unset: the daemon is no egress path for the pods (they have what their NetworkPolicy gives).
  std::optional<KubernetesEgressOptions> egress;
};

class KubernetesSandboxProvider final : public SandboxProvider {
 public:
  // Loads the Kubernetes config; throws plugin::SandboxError saying what to fix. Reads the warm
  // pool and its template (best effort) for isolation_summary() and warnings().
  KubernetesSandboxProvider(KubernetesProviderOptions options, plugin::Logger& logger);
  ~KubernetesSandboxProvider() override;

  std::string_view name() const noexcept override { return "kubernetes"; }
  std::unique_ptr<Sandbox> open(const SandboxRequest& request) override;
  int reap_orphans() override;
  std::vector<std::string> isolation_summary() const override;
  const std::vector<std::string>& warnings() const noexcept override { return warnings_; }
  // A pod's files are not the host's: no host folders, no files taken out from the host.
  bool gives_host_folders() const noexcept override { return false; }
  std::optional<ProviderMetrics> metrics() override;

  // From any thread (daemon shutdown): open() calls still waiting for a claim give up now
  // (deleting their claims), and later ones fail at once. Never throws.
  void stop_opening() noexcept;

  const std::string& kube_namespace() const noexcept { return namespace_; }
  // The egress gateway and what its sandboxes are given; null / unset without egress.
  EgressGateway* egress_gateway() noexcept { return gateway_.get(); }
  const std::optional<KubernetesEgressOptions>& egress() const noexcept { return options_.egress; }
  // The trust bundle a sandbox's commands are given with egress and TLS (the system's roots and
  // the daemon's egress CA); empty otherwise.
  const std::string& trust_bundle() const noexcept { return trust_bundle_; }
  KubeClient& kube() noexcept { return *kube_; }
  plugin::Logger& logger() noexcept { return logger_; }

  // Used by KubernetesSandbox.
  void track(KubernetesSandbox* sandbox);
  void untrack(KubernetesSandbox* sandbox) noexcept;
  // Deletes a claim; 404 counts as deleted. Throws KubeApiError / KubeTransportError.
  void delete_claim(const std::string& claim_name);
  std::string claim_path(const std::string& claim_name) const;
  std::string sandbox_path(const std::string& sandbox_name) const;

 private:
  // Waits for `claim_name` to bind and its sandbox to be ready; returns the sandbox's state.
  SandboxState wait_until_ready(const std::string& claim_name, const SandboxRequest& request);
  std::unique_ptr<net::HttpClient> transport_to(const SandboxState& sandbox) const;
  // Throws plugin::SandboxError when the sandbox's image was built from another toolchain or
  // lockfile than options_.expected_image.
  void check_image(const SandboxState& sandbox) const;
  void renew_leases();
  void describe_warm_pool();

  KubernetesProviderOptions options_;
  plugin::Logger& logger_;
  std::unique_ptr<KubeClient> kube_;
  std::string namespace_;
  std::string pool_note_;  // what the warm pool's template says about isolation
  std::unique_ptr<EgressGateway> gateway_;
  std::string trust_bundle_;
  std::vector<std::string> warnings_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::set<KubernetesSandbox*> live_;
  bool stopping_ = false;          // the lease thread ends
  bool opening_stopped_ = false;   // stop_opening() was called
  std::uint64_t pending_claims_ = 0;  // created by open(), not yet ready or deleted
  std::uint64_t claim_failures_ = 0;  // open() calls whose claim never became ready
  std::thread lease_thread_;
};

}  // namespace kg::sandbox
