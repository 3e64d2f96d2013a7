// What the k8s suite's tests share (test_claim_lifecycle.cpp, test_pool_lifecycle.cpp): a daemon
// whose sandboxes are claims in the test cluster, and ways to watch the cluster settle.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "daemon_fixture.hpp"
#include "test_cluster.hpp"

namespace kg::test {

inline constexpr const char* kHello =
    "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hello from a pod\") }\n";

// A daemon whose sandboxes are claims in the test cluster, labelled with `daemon_id`, signing in
// with `kubeconfig` (default: the manifests' ServiceAccount kode-gopherd's token).
DaemonFixtureOptions kubernetes_daemon(const std::string& daemon_id,
                                       const std::string& warm_pool = TestCluster::kWarmPool,
                                       int claim_timeout_s = 120, std::string kubeconfig = "",
                                       const std::string& more_kubernetes_keys = "");

// The claims in the cluster that carry this daemon's identity.
std::vector<std::string> claims_of(const std::string& daemon_id);

// Polls `condition` every 200 ms until it holds or `timeout` passed; its last answer.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout);

std::string file_text(const std::string& path);

}  // namespace kg::test
