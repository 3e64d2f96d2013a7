// The real Kubernetes cluster the k8s suite runs the kubernetes provider against: etcd,
// kube-apiserver, the agent-sandbox controller and router built from the Go proxy
// (tests/k8s/build-cluster-tools.sh), started once per test process by tests/k8s/start-cluster.sh
// on loopback, with the test playing the kubelet: each pod runs the sandbox image's layout in
// bubblewrap (tests/images/oci-run.py pod) on an address 127.0.0.N. The project's own manifests
// (manifests/overlays/daemon, rendered with the pinned kustomize) are applied to it, so their
// SandboxTemplate and SandboxWarmPool are what the provider claims from, the router runs with
// their Deployment's arguments as their ServiceAccount sandbox-router, and the daemon signs in
// with a token of their ServiceAccount kode-gopherd: each has only what its Role grants.
#pragma once

#include <map>
#include <string>

#include <rapidjson/document.h>

namespace kg::test {

struct ApiAnswer {
  int status = 0;
  std::string body;
};

class TestCluster {
 public:
  // Starts the cluster on first use (the pool has a ready sandbox when this returns); it stops
  // when the test process exits.
  static TestCluster& get();
  // The prewarmed caches and the images (built and unpacked), without starting the cluster: what
  // needs the internet. get() does it too; the sealed suite calls it first, before it moves into
  // its own network (test_sealed_main.cpp).
  static void prepare_images();

  const std::string& env(const std::string& key) const;
  // The admin's (system:masters), for the test's own requests.
  std::string kubeconfig() const { return env("KG_K8S_KUBECONFIG"); }
  // The manifests' ServiceAccount kode-gopherd's token: what the daemon signs in with.
  const std::string& daemon_kubeconfig() const { return daemon_kubeconfig_; }
  const std::string& daemon_token() const { return daemon_token_; }
  std::string router() const { return env("KG_K8S_ROUTER_ADDR"); }
  // The token the router signs in with: its Deployment's ServiceAccount's, from the kubeconfig
  // start-cluster.sh made for it (<state-dir>/kubeconfig-router).
  std::string router_token() const;
  static constexpr const char* kNamespace = "kode-gopher";     // manifests/base
  static constexpr const char* kWarmPool = "kode-gopher-pool";  // manifests/base
  static constexpr const char* kTemplate = "kode-gopher-sandbox";  // manifests/base
  static constexpr const char* kDaemonAccount = "kode-gopherd";  // manifests/components/daemon
  static constexpr const char* kRouterAccount = "sandbox-router";  // manifests/base

  // One request to the API server as the admin token user (or with `token`); `path` starts with
  // /api or /apis. PATCH sends a JSON merge patch, other bodies are JSON.
  ApiAnswer api(const std::string& method, const std::string& path, const std::string& body = "",
                const std::string& token = "") const;
  rapidjson::Document api_json(const std::string& path) const;
  // The claims in the test namespace, by name.
  std::map<std::string, rapidjson::Document> claims() const;
  // Waits until the warm pool has `ready` ready sandboxes; throws after the timeout.
  void wait_for_ready_pool(int ready, int timeout_s, const std::string& pool = kWarmPool) const;

  ~TestCluster();

 private:
  TestCluster();
  void start();
  void write_daemon_kubeconfig();
  std::string state_dir_;
  std::string daemon_kubeconfig_;
  std::string daemon_token_;
  std::map<std::string, std::string> env_;
};

std::string claims_path();
std::string claim_path(const std::string& name);
std::string sandbox_path(const std::string& name);
std::string sandboxes_path();
std::string warm_pools_path();
std::string templates_path();

}  // namespace kg::test
