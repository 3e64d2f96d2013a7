#include "kubernetes_daemon.hpp"

#include <fstream>
#include <sstream>
#include <thread>

namespace kg::test {

DaemonFixtureOptions kubernetes_daemon(const std::string& daemon_id, const std::string& warm_pool,
                                       int claim_timeout_s, std::string kubeconfig,
                                       const std::string& more_kubernetes_keys) {
  auto& cluster = TestCluster::get();
  if (kubeconfig.empty()) kubeconfig = cluster.daemon_kubeconfig();
  DaemonFixtureOptions options;
  // No host build cache: the sandbox image carries it (the fixture must not prewarm one).
  options.empty_base_cache = true;
  options.extra_sandbox_keys = "provider = kubernetes\n";
  options.extra_sections = "[kubernetes]\nkubeconfig = " + kubeconfig +
                           "\nnamespace = " + TestCluster::kNamespace +
                           "\nwarm_pool = " + warm_pool + "\nrouter = " + cluster.router() +
                           "\nclaim_timeout_s = " + std::to_string(claim_timeout_s) +
                           "\ndaemon_id = " + daemon_id + "\n" + more_kubernetes_keys +
                           // A retry after a dead sandbox is refused once a credentialed run began.
                           "\n[credentials]\nplugin = none\n";
  return options;
}

std::vector<std::string> claims_of(const std::string& daemon_id) {
  std::vector<std::string> names;
  for (const auto& [name, claim] : TestCluster::get().claims()) {
    const auto& metadata = claim["metadata"];
    if (!metadata.HasMember("labels")) continue;
    for (const auto& label : metadata["labels"].GetObject()) {
      if (label.value.IsString() && daemon_id == label.value.GetString()) names.push_back(name);
    }
  }
  return names;
}

bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return condition();
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kg::test
