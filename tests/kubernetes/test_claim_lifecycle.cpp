// The kubernetes provider through the real daemon, against the real cluster of test_cluster.hpp:
// claim → ready → execute → close, a claim that cannot bind, a sandbox deleted in the middle of a
// call, and a restarted daemon cleaning up the claims its predecessor left.
#include <doctest/doctest.h>

#include <chrono>
#include <sstream>
#include <thread>

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include "daemon_fixture.hpp"
#include "kubernetes_daemon.hpp"
#include "test_cluster.hpp"

namespace kg::test {

TEST_CASE("a session claims a sandbox from the warm pool, runs programs in it, and closing it deletes the claim") {
  auto& cluster = TestCluster::get();
  cluster.wait_for_ready_pool(1, 120);
  DaemonFixture daemon(kubernetes_daemon("kg-test-lifecycle"));
  daemon.start();
  const auto health = daemon.json(daemon.get("/v1/health"));
  CHECK(json_string(health, "provider") == "kubernetes");
  CHECK_FALSE(health.HasMember("go_build_cache"));  // the image carries it

  const auto session = daemon.open_session();
  const auto hello = daemon.execute(session, kHello);
  INFO(file_text(daemon.dir() + "/daemon.log"));
  REQUIRE(json_string(hello, "status") == "ok");
  CHECK(json_string(hello, "stdout") == "hello from a pod\n");
  CHECK(json_string(hello, "runtime") == "compiled-go");

  // The session's sandbox is this daemon's one claim, bound to a Ready sandbox.
  const auto record = daemon.json(daemon.get("/v1/sessions/" + session));
  CHECK(json_string(record, "provider") == "kubernetes");
  const std::string claim = json_string(record, "sandbox_id");
  CHECK(claims_of("kg-test-lifecycle") == std::vector<std::string>{claim});
  const auto claimed = cluster.api_json(claim_path(claim));
  CHECK(claimed["spec"]["warmPoolRef"]["name"].GetString() == std::string(TestCluster::kWarmPool));
  CHECK(std::string(claimed["metadata"]["labels"]["agents.x-k8s.io/created-by"].GetString()) ==
        "kode-gopher");
  CHECK(claimed["spec"]["lifecycle"].HasMember("shutdownTime"));  // the lease
  // /metrics counts it as this daemon's one ready claim (docs/metrics.md).
  const auto metrics = daemon.get("/metrics").body;
  INFO(metrics);
  CHECK(metrics.find("\nkode_gopher_kubernetes_claims{state=\"ready\"} 1\n") != std::string::npos);
  CHECK(metrics.find("\nkode_gopher_kubernetes_claims{state=\"pending\"} 0\n") != std::string::npos);
  CHECK(metrics.find("\nkode_gopher_kubernetes_claim_failures_total 0\n") != std::string::npos);

  // A curated import builds from the image's prewarmed cache; Yaegi runs in the same pod.
  const auto curated = daemon.execute(
      session,
      "package main\nimport (\"fmt\"\n\"cloud.google.com/go/storage\")\n"
      "func main() { fmt.Println(storage.ScopeReadOnly) }\n");
  CHECK(json_string(curated, "status") == "ok");
  CHECK(json_string(curated, "stdout") == "https://www.googleapis.com/auth/devstorage.read_only\n");
  const auto interpreted = daemon.execute(session, kHello, R"("runtime":"yaegi")");
  CHECK(json_string(interpreted, "status") == "ok");
  CHECK(json_string(interpreted, "runtime") == "yaegi");
  CHECK(json_string(interpreted, "stdout") == "hello from a pod\n");
  // Modules beyond the curated lockfile need the host's go mod tidy: refused, saying so, and the
  // session goes on in the same sandbox.
  const auto outside = daemon.post(
      "/v1/sessions/" + session + "/execute",
      R"({"files":{"main.go":"package main\nimport \"github.com/dustin/go-humanize\"\nfunc main() { println(humanize.Bytes(1)) }\n"}})");
  CAPTURE(outside.body);
  CHECK(outside.status == 400);
  CHECK(outside.body.find("outside the curated lockfile") != std::string::npos);
  CHECK(daemon.json(daemon.get("/v1/sessions/" + session))["sandbox_id"].GetString() == claim);

  CHECK(daemon.del("/v1/sessions/" + session).status == 200);
  CHECK(eventually([&] { return cluster.api("GET", claim_path(claim)).status == 404; },
                   std::chrono::seconds(15)));
  daemon.stop_gracefully();
}

TEST_CASE("the daemon signs in to the API server with a client certificate or an exec plugin") {
  auto& cluster = TestCluster::get();
  for (const char* key : {"KG_K8S_KUBECONFIG_CERT", "KG_K8S_KUBECONFIG_EXEC"}) {
    CAPTURE(key);
    cluster.wait_for_ready_pool(1, 120);
    DaemonFixture daemon(kubernetes_daemon("kg-test-auth", TestCluster::kWarmPool, 120,
                                           cluster.env(key)));
    daemon.start();
    const auto session = daemon.open_session();
    const auto hello = daemon.execute(session, kHello);
    CHECK(json_string(hello, "status") == "ok");
    CHECK(json_string(hello, "stdout") == "hello from a pod\n");
    daemon.stop_gracefully();  // deletes its claim
    CHECK(eventually([] { return claims_of("kg-test-auth").empty(); }, std::chrono::seconds(15)));
  }
  // The exec plugin ran (it logs each call): the daemon's token came from it.
  CHECK(file_text(cluster.env("KG_K8S_LOG_DIR") + "/exec-credential.log").size() > 0);
}

TEST_CASE("each image unpacks and its entry binaries run from its own root filesystem") {
  TestCluster::get();  // builds the images
  Poco::Pipe out;
  auto process = Poco::Process::launch(
      "/usr/bin/python3",
      {required_env("KG_REPO") + "/tests/images/oci-run.py", "check", required_env("KG_IMAGES_DIR")},
      nullptr, &out, &out);
  Poco::PipeInputStream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const int rc = process.wait();
  INFO(text.str());
  CHECK(rc == 0);
  CHECK(text.str().find("3 passed, 0 failed") != std::string::npos);
}

TEST_CASE("the daemon's ServiceAccount may do what the provider does and nothing outside its Role") {
  auto& cluster = TestCluster::get();
  const std::string& token = cluster.daemon_token();
  const std::string ns = std::string("/namespaces/") + TestCluster::kNamespace;
  const std::string pools = "/apis/extensions.agents.x-k8s.io/v1beta1" + ns + "/sandboxwarmpools/";
  // Granted: what the provider calls (a list of claims by label, the warm pool).
  CHECK(cluster.api("GET", claims_path() + "?labelSelector=x%3Dy", "", token).status == 200);
  CHECK(cluster.api("GET", pools + TestCluster::kWarmPool, "", token).status == 200);
  // Refused (403): verbs and resources the Role does not give, the provider never needs.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"GET", claims_path() + "?watch=true"},                         // claims: no watch
      {"GET", "/apis/agents.x-k8s.io/v1beta1" + ns + "/sandboxes"},  // sandboxes: no list
      {"DELETE", sandbox_path("any")},                                // sandboxes: get only
      {"DELETE", pools + TestCluster::kWarmPool},                     // warm pools: get only
      {"GET", "/api/v1" + ns + "/pods"},
      {"GET", "/api/v1" + ns + "/secrets"},
      {"GET", "/apis/extensions.agents.x-k8s.io/v1beta1/sandboxclaims"},  // other namespaces
  };
  for (const auto& [method, path] : refused) {
    CAPTURE(method);
    CAPTURE(path);
    const auto answer = cluster.api(method, path, "", token);
    INFO(answer.body);
    CHECK(answer.status == 403);
  }
}

TEST_CASE("the router signs in as the manifests' ServiceAccount, which may read pods in its namespace and nothing else") {
  auto& cluster = TestCluster::get();
  const std::string token = cluster.router_token();
  CHECK(token != cluster.env("KG_K8S_TOKEN"));
  // Who the router's token is (every claim test goes through the router signed in with it).
  const auto who = cluster.api("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                               R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})",
                               token);
  INFO(who.body);
  CHECK(who.status == 201);
  CHECK(who.body.find(std::string(R"("username":"system:serviceaccount:)") +
                      TestCluster::kNamespace + ":" + TestCluster::kRouterAccount + "\"") !=
        std::string::npos);
  const std::string ns = std::string("/namespaces/") + TestCluster::kNamespace;
  // Granted: what its pod cache does (--cache-namespace: list and watch pods, get one).
  CHECK(cluster.api("GET", "/api/v1" + ns + "/pods?labelSelector=x%3Dy", "", token).status == 200);
  CHECK(cluster.api("GET", "/api/v1" + ns + "/pods/any", "", token).status == 404);  // not 403
  // Refused (403): the rest (manifests/base/router-rbac.yaml).
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"GET", "/api/v1/pods"},                                        // other namespaces
      {"GET", "/api/v1/namespaces/default/pods"},
      {"DELETE", "/api/v1" + ns + "/pods/any"},                       // pods: read only
      {"POST", "/api/v1" + ns + "/pods"},
      {"GET", "/api/v1" + ns + "/secrets"},
      {"GET", "/api/v1" + ns + "/services"},
      {"GET", "/apis/agents.x-k8s.io/v1beta1" + ns + "/sandboxes"},
      {"GET", claims_path()},
      {"POST", "/api/v1" + ns + "/serviceaccounts/" + TestCluster::kDaemonAccount + "/token"},
  };
  for (const auto& [method, path] : refused) {
    CAPTURE(method);
    CAPTURE(path);
    const auto answer =
        cluster.api(method, path, method == "POST" ? R"({"apiVersion":"v1","kind":"Pod"})" : "", token);
    INFO(answer.body);
    CHECK(answer.status == 403);
  }
}

TEST_CASE("every overlay of manifests/ passes the API server's strict server-side dry run") {
  auto& cluster = TestCluster::get();
  // The agent-sandbox CRD schemas and the Kubernetes OpenAPI of a real API server, unknown
  // fields refused (tests/manifests/validate-against-cluster.sh, with the kubectl built beside
  // the cluster).
  Poco::Process::Env env;
  env["KUBECTL"] = cluster.env("KG_K8S_BIN_DIR") + "/kubectl";
  Poco::Pipe out;
  auto process = Poco::Process::launch(
      "/bin/bash",
      {required_env("KG_REPO") + "/tests/manifests/validate-against-cluster.sh", cluster.kubeconfig()},
      nullptr, &out, &out, env);
  Poco::PipeInputStream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const int rc = process.wait();
  INFO(text.str());
  CHECK(rc == 0);
  CHECK(text.str().find("7 passed, 0 failed") != std::string::npos);
}

TEST_CASE("the daemon renews its claim's lease on the real API server") {
  auto& cluster = TestCluster::get();
  cluster.wait_for_ready_pool(1, 120);
  DaemonFixture daemon(
      kubernetes_daemon("kg-test-lease", TestCluster::kWarmPool, 120, "", "lease_s = 60\n"));
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  const std::string claim = claims_of("kg-test-lease").at(0);
  auto shutdown_time = [&] {
    return std::string(
        cluster.api_json(claim_path(claim))["spec"]["lifecycle"]["shutdownTime"].GetString());
  };
  const std::string first = shutdown_time();
  // Renewed every third of the lease (20 s): the time moves on, and the claim lives past it.
  CHECK(eventually([&] { return shutdown_time() != first; }, std::chrono::seconds(40)));
  CHECK(shutdown_time() > first);  // RFC 3339 in UTC compares as text
  CHECK(daemon.del("/v1/sessions/" + session).status == 200);
}

TEST_CASE("a claim against a warm pool that does not exist fails the call, naming the pool, and is deleted") {
  TestCluster::get().wait_for_ready_pool(1, 120);
  DaemonFixture daemon(kubernetes_daemon("kg-test-nopool", "no-such-pool", 8));
  daemon.start();
  const auto session = daemon.open_session();
  const auto started = std::chrono::steady_clock::now();
  const auto answer = daemon.post("/v1/sessions/" + session + "/execute",
                                  R"({"files":{"main.go":"package main\nfunc main() {}\n"}})");
  INFO(answer.body);
  CHECK(answer.status >= 500);
  CHECK(answer.body.find("no-such-pool") != std::string::npos);
  CHECK(answer.body.find("does not exist") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));
  // Giving up deletes the claim: nothing is left waiting in the cluster.
  CHECK(eventually([] { return claims_of("kg-test-nopool").empty(); }, std::chrono::seconds(15)));
  // The daemon keeps serving, and counts the failure.
  CHECK(daemon.get("/v1/health").status == 200);
  const auto metrics = daemon.get("/metrics").body;
  INFO(metrics);
  const std::string failures = "\nkode_gopher_kubernetes_claim_failures_total ";
  REQUIRE(metrics.find(failures) != std::string::npos);
  CHECK(std::stoi(metrics.substr(metrics.find(failures) + failures.size())) >= 1);
  CHECK(metrics.find("\nkode_gopher_kubernetes_claims{state=\"pending\"} 0\n") != std::string::npos);
}

TEST_CASE("a sandbox deleted in the middle of a call is replaced, and the call runs once more on a new claim") {
  auto& cluster = TestCluster::get();
  cluster.wait_for_ready_pool(1, 120);
  DaemonFixture daemon(kubernetes_daemon("kg-test-deleted"));
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  const auto first_claims = claims_of("kg-test-deleted");
  REQUIRE(first_claims.size() == 1);
  const std::string first_claim = first_claims[0];
  const std::string first_sandbox =
      cluster.api_json(claim_path(first_claim))["status"]["sandbox"]["name"].GetString();

  std::vector<std::string> lines;
  int deletions = 0;
  const int status = daemon.post_streaming(
      "/v1/sessions/" + session + "/execute",
      R"({"files":{"main.go":"package main\nimport (\"fmt\"\n\"time\")\nfunc main() { time.Sleep(3 * time.Second); fmt.Println(\"done\") }\n"}})",
      [&](const std::string& line) {
        lines.push_back(line);
        // The first run started: delete its sandbox under it.
        const bool run_began = line.starts_with(R"({"progress":{"phase":"run")");
        if (run_began && deletions++ == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(500));
          const auto deleted = cluster.api("DELETE", sandbox_path(first_sandbox));
          CHECK(deleted.status == 200);
        }
      });
  INFO(file_text(daemon.dir() + "/daemon.log"));
  CHECK(status == 200);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back().find(R"("status":"ok")") != std::string::npos);
  CHECK(lines.back().find(R"("stdout":"done\n")") != std::string::npos);
  CHECK(deletions == 2);  // the program's run began twice: once per sandbox
  CHECK(file_text(daemon.dir() + "/daemon.log").find("retrying once") != std::string::npos);
  // The session moved to a new claim; the old one is deleted.
  const std::string now_claim =
      daemon.json(daemon.get("/v1/sessions/" + session))["sandbox_id"].GetString();
  CHECK(now_claim != first_claim);
  CHECK(eventually([&] { return cluster.api("GET", claim_path(first_claim)).status == 404; },
                   std::chrono::seconds(15)));
  CHECK(daemon.del("/v1/sessions/" + session).status == 200);
}

TEST_CASE("a daemon restarted after a crash deletes the claims its predecessor left") {
  auto& cluster = TestCluster::get();
  cluster.wait_for_ready_pool(1, 120);
  DaemonFixture daemon(kubernetes_daemon("kg-test-restart"));
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  const auto left = claims_of("kg-test-restart");
  REQUIRE(left.size() == 1);
  daemon.kill_hard();  // no chance to delete its claim
  CHECK(cluster.api("GET", claim_path(left[0])).status == 200);

  daemon.start();  // the same identity: its start deletes the leftover
  CHECK(eventually([&] { return cluster.api("GET", claim_path(left[0])).status == 404; },
                   std::chrono::seconds(15)));
  // And it serves: a new session gets a new claim.
  const auto next = daemon.open_session();
  CHECK(json_string(daemon.execute(next, kHello), "status") == "ok");
  daemon.stop_gracefully();
  CHECK(eventually([] { return claims_of("kg-test-restart").empty(); }, std::chrono::seconds(15)));
}

}  // namespace kg::test
