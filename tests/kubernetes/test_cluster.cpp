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
std::string sandboxes_path() {
  return std::string("/apis/agents.x-k8s.io/v1beta1/namespaces/") + TestCluster::kNamespace +
         "/sandboxes";
}
std::string sandbox_path(const std::string& name) { return sandboxes_path() + "/" + name; }
std::string warm_pools_path() {
  return std::string("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/") +
         TestCluster::kNamespace + "/sandboxwarmpools";
}
std::string templates_path() {
  return std::string("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/") +
         TestCluster::kNamespace + "/sandboxtemplates";
}

TestCluster& TestCluster::get() {
  static TestCluster cluster;
  return cluster;
}

TestCluster::TestCluster() : state_dir_(unique_temp_dir("kg-k8s-")) {
  Poco::Net::initializeSSL();
  try {
    start();
  } catch (...) {
    // No destructor runs for a constructor that throws: stop what started and leave no state
    // dir behind (the next TestCluster::get() starts afresh).
    run_command("/bin/bash", {repo_root() + "/tests/k8s/stop-cluster.sh", state_dir_});
    std::error_code ec;
    fs::remove_all(state_dir_, ec);
    throw;
  }
}

void TestCluster::prepare_images() {
  static bool prepared = false;
  if (prepared) return;
  {
    // The sandbox image carries the shared prewarmed caches: a local daemon's start makes them,
    // once, when no other suite has yet. Its destructor stops it: the sealed suite runs this
    // before doctest does, where an assertion (stop_gracefully's) cannot run.
    DaemonFixture prewarmer;
    prewarmer.start();
  }
  // The images, built as CI ships them (packaging/images/build-images.py: mmdebstrap, umoci) from
  // this build, the router's pinned module and the prewarmed caches; unchanged ones are kept.
  const std::string images = required_env("KG_IMAGES_DIR");
  const auto built = run_command(
      "/usr/bin/python3",
      {repo_root() + "/packaging/images/build-images.py", images, "--build-dir",
       required_env("KG_BUILD_DIR"), "--k8s-tools", required_env("KG_K8S_TOOLS_DIR"),
       "--base-cache", required_env("KG_BASE_CACHE"), "--base-modcache",
       required_env("KG_BASE_MODCACHE")});
  if (built.rc != 0) throw std::runtime_error("build-images.py failed:\n" + built.output);
  // Each pod, and the router, runs from its image's root filesystem in bubblewrap
  // (tests/images/oci-run.py), found by the digest the manifests name; unpacked here first (a
  // minute or two for the sandbox image), as a node pulls an image before starting its pods.
  const auto unpacked = run_command("/usr/bin/python3",
                                    {repo_root() + "/tests/images/oci-run.py", "unpack", images});
  if (unpacked.rc != 0) throw std::runtime_error("oci-run.py unpack failed:\n" + unpacked.output);
  // The pinned kustomize, built through the Go proxy on first use (start() renders with it).
  const auto kustomize = run_command("/bin/bash", {repo_root() + "/tests/manifests/kustomize.sh"});
  if (kustomize.rc != 0) throw std::runtime_error("kustomize.sh failed:\n" + kustomize.output);
  prepared = true;
}

void TestCluster::start() {
  prepare_images();
  const std::string images = required_env("KG_IMAGES_DIR");
  // The project's manifests with the images just built, by digest, as an install sets its own
  // (an overlay over manifests/overlays/daemon with `images:`), rendered first: the router runs
  // with their Deployment's arguments and image.
  const std::string overlay = state_dir_ + "/overlay";
  fs::create_directories(overlay);
  std::ofstream(overlay + "/kustomization.yaml")
      << "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- "
      // kustomize takes only relative paths to another kustomization.
      << fs::relative(repo_root() + "/manifests/overlays/daemon", overlay).string()
      << "\nimages:\n"
      << "- name: kode-gopher-sandbox\n  digest: "
      << last_line(read_file(images + "/kode-gopher-sandbox.digest"))
      << "\n- name: sandbox-router\n  digest: "
      << last_line(read_file(images + "/sandbox-router.digest")) << "\n";
  const auto kustomize = run_command("/bin/bash", {repo_root() + "/tests/manifests/kustomize.sh"});
  if (kustomize.rc != 0) throw std::runtime_error("kustomize.sh failed:\n" + kustomize.output);
  // It prints the binary's path last (after any build output).
  const auto rendered = run_command(last_line(kustomize.output), {"build", overlay});
  if (rendered.rc != 0) throw std::runtime_error("kustomize build failed:\n" + rendered.output);
  const std::string manifests = state_dir_ + "/manifests.yaml";
  std::ofstream(manifests) << rendered.output;
  const std::string oci_run = "/usr/bin/python3 " + repo_root() + "/tests/images/oci-run.py";
  Poco::Process::Env env;
  // KG_K8S_POD_ONLY_REACH (the sealed suite's gateway address): every pod in a network of its own
  // whose only way out is that address (tests/images/pod_network.py), as a NetworkPolicy admits.
  const char* only_reach = std::getenv("KG_K8S_POD_ONLY_REACH");
  env["KG_K8S_POD_COMMAND"] =
      oci_run + " pod " +
      (only_reach != nullptr && *only_reach ? "--only-reach " + std::string(only_reach) + " " : "") +
      images;
  env["KG_K8S_ROUTER_COMMAND"] = oci_run + " run " + images + " --bind-ro " + state_dir_ + " --";
  const auto started = run_command(
      "/bin/bash", {repo_root() + "/tests/k8s/start-cluster.sh", state_dir_, "--parent-pid",
                    std::to_string(::getpid()), "--tools-dir", required_env("KG_K8S_TOOLS_DIR"),
                    "--sandbox-server", required_env("KG_SANDBOX_SERVER"),
                    "--router-manifests", manifests},
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
  // start-cluster.sh --router-manifests applied them (namespace, template, warm pool, the
  // router's and the daemon's accounts and RBAC) before it started the router as its account.
  write_daemon_kubeconfig();
  wait_for_ready_pool(1, 120);
}

TestCluster::~TestCluster() {
  run_command("/bin/bash", {repo_root() + "/tests/k8s/stop-cluster.sh", state_dir_});
  std::error_code ec;
  fs::remove_all(state_dir_, ec);
}

// A token of the manifests' own ServiceAccount kode-gopherd (TokenRequest, as `kubectl create
// token` makes one) in a kubeconfig: the daemon signs in as that account, so it has only what the
// shipped Role grants.
void TestCluster::write_daemon_kubeconfig() {
  const std::string path = std::string("/api/v1/namespaces/") + kNamespace + "/serviceaccounts/" +
                           kDaemonAccount + "/token";
  ApiAnswer answer;
  // The account exists once `apply` returned; its token endpoint may lag a moment behind.
  for (int attempt = 0; attempt < 50; ++attempt) {
    answer = api("POST", path,
                 R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)"
                 R"("spec":{"expirationSeconds":14400}})");
    if (answer.status == 201 || answer.status == 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  kg::json::ReadJson read = kg::test::read_test_json(answer.body);
  if ((answer.status != 201 && answer.status != 200) || read.refused ||
      !read.document.HasMember("status") || !read.document["status"].HasMember("token")) {
    throw std::runtime_error("POST " + path + ": " + std::to_string(answer.status) + " " +
                             answer.body);
  }
  daemon_token_ = read.document["status"]["token"].GetString();
  daemon_kubeconfig_ = state_dir_ + "/kubeconfig-daemon";
  std::ofstream(daemon_kubeconfig_)
      << "apiVersion: v1\nkind: Config\nclusters:\n- name: kcluster\n  cluster:\n    server: "
      << env("KG_K8S_API_URL") << "\n    certificate-authority: " << env("KG_K8S_CA_FILE")
      << "\nusers:\n- name: " << kDaemonAccount << "\n  user:\n    token: " << daemon_token_
      << "\ncontexts:\n- name: kode-gopher\n  context:\n    cluster: kcluster\n    user: "
      << kDaemonAccount << "\n    namespace: " << kNamespace
      << "\ncurrent-context: kode-gopher\n";
}

const std::string& TestCluster::env(const std::string& key) const {
  auto it = env_.find(key);
  if (it == env_.end()) throw std::runtime_error("the cluster's env file has no " + key);
  return it->second;
}

ApiAnswer TestCluster::api(const std::string& method, const std::string& path,
                           const std::string& body, const std::string& token) const {
  const Poco::URI server(env("KG_K8S_API_URL"));
  Poco::Net::Context::Ptr context = new Poco::Net::Context(
      Poco::Net::Context::TLS_CLIENT_USE, "", "", env("KG_K8S_CA_FILE"),
      Poco::Net::Context::VERIFY_RELAXED);
  Poco::Net::HTTPSClientSession session(server.getHost(), server.getPort(), context);
  session.setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + (token.empty() ? env("KG_K8S_TOKEN") : token));
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

std::string TestCluster::router_token() const {
  // clientcmd's kubeconfig (tests/k8s/cluster/cmd/kcluster/router_account.go): one user, one
  // "token: " line.
  std::istringstream lines(read_file(env("KG_K8S_STATE_DIR") + "/kubeconfig-router"));
  const std::string key = "token: ";
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(key);
    if (at != std::string::npos) return line.substr(at + key.size());
  }
  throw std::runtime_error("the router's kubeconfig " + env("KG_K8S_STATE_DIR") +
                           "/kubeconfig-router has no token");
}

void TestCluster::wait_for_ready_pool(int ready, int timeout_s, const std::string& pool) const {
  const std::string path = warm_pools_path() + "/" + pool;
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
  throw std::runtime_error("the warm pool " + pool + " has no " +
                           std::to_string(ready) + " ready sandbox(es) after " +
                           std::to_string(timeout_s) + " s: " + last);
}

}  // namespace kg::test
