#include "test_cluster.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/URI.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace fs = std::filesystem;
namespace {

struct CommandResult {
  int rc = 0;
  std::string output;  // stdout and stderr together
};

CommandResult run_command(const std::string& program, const std::vector<std::string>& args,
                          const Poco::Process::Env& env = {}) {
  Poco::Pipe out;
  auto process = Poco::Process::launch(program, args, nullptr, &out, &out, env);
  Poco::PipeInputStream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return {process.wait(), text.str()};
}

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

std::string repo_root() { return required_env("KG_REPO"); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string claims_path() {
  return std::string("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/") +
         TestCluster::kNamespace + "/sandboxclaims";
}
std::string claim_path(const std::string& name) { return claims_path() + "/" + name; }
std::string sandbox_path(const std::string& name) {
  return std::string("/apis/agents.x-k8s.io/v1beta1/namespaces/") + TestCluster::kNamespace +
         "/sandboxes/" + name;
}

TestCluster& TestCluster::get() {
  static TestCluster cluster;
  return cluster;
}

TestCluster::TestCluster() : state_dir_(unique_temp_dir("kg-k8s-")) {
  Poco::Net::initializeSSL();
  {
    // The pods' image layout reads the shared prewarmed caches: a local daemon's start makes
    // them, once, when no other suite has yet.
    DaemonFixture prewarmer;
    prewarmer.start();
    prewarmer.stop_gracefully();
  }
  // Each pod is the sandbox image's layout, made from this build's parts and the shared
  // prewarmed caches (the image's /opt/kode-gopher/gocache-base).
  Poco::Process::Env env;
  env["KG_K8S_POD_COMMAND"] =
      "/usr/bin/python3 " + repo_root() + "/tests/manifests/test-sandbox-image.py run-pod";
  const auto started = run_command(
      "/bin/bash", {repo_root() + "/tests/k8s/start-cluster.sh", state_dir_, "--parent-pid",
                    std::to_string(::getpid()), "--tools-dir", required_env("KG_K8S_TOOLS_DIR"),
                    "--sandbox-server", required_env("KG_SANDBOX_SERVER")},
      env);
  if (started.rc != 0) {
    throw std::runtime_error("tests/k8s/start-cluster.sh failed (exit " +
                             std::to_string(started.rc) + "):\n" + started.output);
  }
  std::istringstream lines(read_file(state_dir_ + "/env"));
  for (std::string line; std::getline(lines, line);) {
    const auto equals = line.find('=');
    if (equals != std::string::npos) env_[line.substr(0, equals)] = line.substr(equals + 1);
  }
  // The project's manifests: namespace, SandboxTemplate, SandboxWarmPool, the daemon's RBAC.
  const auto kustomize = run_command("/bin/bash", {repo_root() + "/tests/manifests/kustomize.sh"});
  if (kustomize.rc != 0) throw std::runtime_error("kustomize.sh failed:\n" + kustomize.output);
  // It prints the binary's path last (after any build output).
  const auto rendered =
      run_command(last_line(kustomize.output), {"build", repo_root() + "/manifests/overlays/daemon"});
  if (rendered.rc != 0) throw std::runtime_error("kustomize build failed:\n" + rendered.output);
  const std::string manifests = state_dir_ + "/manifests.yaml";
  std::ofstream(manifests) << rendered.output;
  const auto applied = run_command(env_.at("KG_K8S_BIN_DIR") + "/kcluster",
                                   {"apply", "--kubeconfig", kubeconfig(), manifests});
  if (applied.rc != 0) throw std::runtime_error("kcluster apply failed:\n" + applied.output);
  wait_for_ready_pool(1, 120);
}

TestCluster::~TestCluster() {
  run_command("/bin/bash", {repo_root() + "/tests/k8s/stop-cluster.sh", state_dir_});
  std::error_code ec;
  fs::remove_all(state_dir_, ec);
}

const std::string& TestCluster::env(const std::string& key) const {
  auto it = env_.find(key);
  if (it == env_.end()) throw std::runtime_error("the cluster's env file has no " + key);
  return it->second;
}

ApiAnswer TestCluster::api(const std::string& method, const std::string& path,
                           const std::string& body) const {
  const Poco::URI server(env("KG_K8S_API_URL"));
  Poco::Net::Context::Ptr context = new Poco::Net::Context(
      Poco::Net::Context::TLS_CLIENT_USE, "", "", env("KG_K8S_CA_FILE"),
      Poco::Net::Context::VERIFY_RELAXED);
  Poco::Net::HTTPSClientSession session(server.getHost(), server.getPort(), context);
  session.setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + env("KG_K8S_TOKEN"));
  request.set("Accept", "application/json");
  if (!body.empty()) {
    request.setContentType(method == "PATCH" ? "application/merge-patch+json" : "application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
  }
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::stringstream text;
  text << in.rdbuf();
  return {static_cast<int>(response.getStatus()), text.str()};
}

rapidjson::Document TestCluster::api_json(const std::string& path) const {
  const auto answer = api("GET", path);
  kg::json::ReadJson doc_read = kg::test::read_test_json(answer.body);
  rapidjson::Document& doc = doc_read.document;
  if (answer.status != 200 || doc_read.refused.has_value()) {
    throw std::runtime_error("GET " + path + ": " + std::to_string(answer.status) + " " + answer.body);
  }
  return std::move(doc);
}

std::map<std::string, rapidjson::Document> TestCluster::claims() const {
  auto list = api_json(claims_path());
  std::map<std::string, rapidjson::Document> claims;
  for (auto& item : list["items"].GetArray()) {
    rapidjson::Document claim;
    claim.CopyFrom(item, claim.GetAllocator());
    claims.emplace(item["metadata"]["name"].GetString(), std::move(claim));
  }
  return claims;
}

void TestCluster::wait_for_ready_pool(int ready, int timeout_s) const {
  const std::string path = std::string("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/") +
                           kNamespace + "/sandboxwarmpools/" + kWarmPool;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto answer = api("GET", path);
    last = answer.body;
    kg::json::ReadJson pool_read = kg::test::read_test_json(answer.body);
    rapidjson::Document& pool = pool_read.document;
    if (answer.status == 200 && !pool_read.refused && pool.HasMember("status") &&
        pool["status"].HasMember("readyReplicas") &&
        pool["status"]["readyReplicas"].GetInt() >= ready) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  throw std::runtime_error("the warm pool " + std::string(kWarmPool) + " has no " +
                           std::to_string(ready) + " ready sandbox(es) after " +
                           std::to_string(timeout_s) + " s: " + last);
}

}  // namespace kg::test
