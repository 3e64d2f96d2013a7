// The provider's own logic (what it waits for, reports, deletes and renews) against a scripted
// API server and router on loopback: one real HTTP server answering the agent-sandbox paths the
// way the controller does, step by step. The same lifecycle against a real kube-apiserver, the
// agent-sandbox controller and the router is the k8s suite's.
#include <doctest/doctest.h>

#include <Poco/Base64Encoder.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <map>
#include <sstream>

#include "error_chain.hpp"
#include "kubernetes_sandbox.hpp"
#include "kubernetes_sandbox_provider.hpp"
#include "test_support.hpp"

using namespace kg::sandbox;
using kg::test::Answer;
using kg::test::LoopbackHttpServer;
using kg::test::SeenRequest;
using kg::test::TempDir;

namespace {

const std::string kClaims = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/team/sandboxclaims";
const std::string kClaim = kClaims + "/sandbox-claim-t1";
const std::string kSandbox = "/apis/agents.x-k8s.io/v1beta1/namespaces/team/sandboxes/sb-1";

Answer not_found(const std::string& what) {
  return {404, R"({"kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":")" + what +
                   R"( not found"})"};
}

std::string claim_json(const std::string& sandbox, const std::string& reason = "",
                       const std::string& status = "False") {
  std::string json = R"({"metadata":{"name":"sandbox-claim-t1"},"status":{)";
  if (!sandbox.empty()) json += R"("sandbox":{"name":")" + sandbox + R"("},)";
  json += R"("conditions":[)";
  if (!reason.empty()) {
    json += R"({"type":"Ready","status":")" + status + R"(","reason":")" + reason + R"(","message":"m"})";
  }
  return json + "]}}";
}

// The cluster as the provider sees it: each GET of the claim or sandbox takes the next state
// of its script (the last one repeats).
struct ScriptedCluster {
  std::vector<Answer> claim_states;
  std::vector<Answer> sandbox_states;
  std::atomic<int> claim_gets{0}, sandbox_gets{0};
  Answer patch_answer{200, "{}"};
  Answer delete_answer{200, R"({"kind":"Status","status":"Success"})"};
  std::vector<std::string> listed = {};
  // What `cat /opt/kode-gopher/kode-gopher-image` answers in the sandbox (exit 1: no such file).
  std::string image_stamp = "go1.26.8\nlockfile abc\n";
  int image_exit = 0;

  Answer respond(const SeenRequest& r) {
    const std::string path = r.uri.substr(0, r.uri.find('?'));
    if (!r.sandbox_id.empty() && path == "/execute") {  // the image check, through the router
      std::string escaped;
      for (char c : image_stamp) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
      return {200, R"({"stdout":")" + escaped + R"(","stderr":"","exit_code":)" +
                       std::to_string(image_exit) + "}"};
    }
    if (!r.sandbox_id.empty()) return {200, R"({"status":"ok"})"};  // through the router
    if (r.method == "POST" && path == kClaims) return {201, claim_json("")};
    if (r.method == "GET" && path == kClaims) {
      std::string items;
      for (const auto& name : listed) {
        items += (items.empty() ? "" : ",") + std::string(R"({"metadata":{"name":")") + name + "\"}}";
      }
      return {200, R"({"kind":"SandboxClaimList","items":[)" + items + "]}"};
    }
    if (r.method == "GET" && path == kClaim) return next(claim_states, claim_gets);
    if (r.method == "GET" && path == kSandbox) return next(sandbox_states, sandbox_gets);
    if (r.method == "PATCH") return patch_answer;
    if (r.method == "DELETE") return delete_answer;
    if (path.ends_with("/sandboxwarmpools/pool")) {
      return {200, R"({"spec":{"sandboxTemplateRef":{"name":"tmpl"}}})"};
    }
    if (path.ends_with("/sandboxtemplates/tmpl")) {
      return {200, R"({"spec":{"podTemplate":{"spec":{"runtimeClassName":"gvisor"}}}})"};
    }
    return not_found(path);
  }
  static Answer next(const std::vector<Answer>& states, std::atomic<int>& count) {
    const int i = count++;
    return states.at(std::min<std::size_t>(static_cast<std::size_t>(i), states.size() - 1));
  }
};

struct Logger : kg::plugin::Logger {
  void log(kg::plugin::LogLevel, std::string_view) noexcept override {}
};

struct Fixture {
  ScriptedCluster cluster;
  LoopbackHttpServer server{[this](const SeenRequest& r, int) { return cluster.respond(r); }};
  TempDir dir;
  Logger logger;
  KubernetesProviderOptions options;

  Fixture() {
    options.kubeconfig = kg::test::write_file(
        dir / "kc", "current-context: c\n"
                    "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:" +
                        std::to_string(server.port()) + "'}}]\n"
                    "users: [{name: u, user: {token: t}}]\n"
                    "contexts: [{name: c, context: {cluster: k, user: u, namespace: team}}]\n");
    options.warm_pool = "pool";
    options.router_host = "127.0.0.1";
    options.router_port = server.port();
    options.daemon_id = "unit";
    options.poll_interval = std::chrono::milliseconds(10);
    options.claim_timeout = std::chrono::seconds(5);
  }
  std::vector<SeenRequest> requests(const std::string& method) const {
    std::vector<SeenRequest> out;
    for (const auto& r : server.seen()) {
      if (r.method == method) out.push_back(r);
    }
    return out;
  }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return kg::describe_error_chain(e);
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("open waits through an API hiccup, the binding and the sandbox's start, with progress") {
  Fixture f;
  f.cluster.claim_states = {{503, R"({"kind":"Status","reason":"ServiceUnavailable","message":"etcd"})"},
                            {200, claim_json("")},
                            {200, claim_json("", "SandboxCreatePending")},
                            {200, claim_json("sb-1", "SandboxNotReady")}};
  f.cluster.sandbox_states = {not_found("sb-1"),
                              {200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"False","reason":"DependenciesNotReady","message":"Pod is Pending"}]}})"},
                              {200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  CHECK(provider.warnings().empty());
  CHECK(provider.isolation_summary().at(1).find("sets runtimeClassName gvisor") != std::string::npos);
  std::vector<std::string> progress;
  SandboxRequest request;
  request.session_id = "s-1";
  request.progress = [&](std::string_view line) { progress.emplace_back(line); };
  auto sandbox = provider.open(request);
  CHECK(sandbox->id() == "sandbox-claim-t1");
  REQUIRE(progress.size() == 6);
  CHECK(progress[0] == "claiming a sandbox from warm pool pool");
  CHECK(progress[1].starts_with("the API server failed (The Kubernetes API server answered GET"));
  CHECK(progress[2] == "waiting for claim sandbox-claim-t1 to bind a sandbox of warm pool pool");
  CHECK(progress[3] == "waiting for claim sandbox-claim-t1 to bind a sandbox of warm pool pool (SandboxCreatePending)");
  CHECK(progress[4] == "waiting for sandbox sb-1 to be Ready (DependenciesNotReady: Pod is Pending)");
  CHECK(progress[5] == "waiting for sandbox sb-1 to answer through the router");
  const auto posts = f.requests("POST");
  REQUIRE(posts.size() == 1);
  CHECK(posts[0].body.find(R"("warmPoolRef":{"name":"pool"})") != std::string::npos);
  CHECK(posts[0].authorization == "Bearer t");
  CHECK(f.requests("DELETE").empty());
  sandbox.reset();  // closing deletes the claim
  const auto deletes = f.requests("DELETE");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].uri == kClaim);
}

TEST_CASE("a sandbox whose image was built for another toolchain or lockfile is refused, named, and its claim deleted") {
  const std::vector<Answer> bound = {{200, claim_json("sb-1", "DependenciesReady", "True")}};
  const std::vector<Answer> ready = {{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"}};
  {
    Fixture f;
    f.cluster.claim_states = bound;
    f.cluster.sandbox_states = ready;
    f.options.expected_image = "go1.26.8\nlockfile abc\n";
    KubernetesSandboxProvider provider(f.options, f.logger);
    CHECK(provider.open({})->id() == "sandbox-claim-t1");  // the same: used
  }
  {
    Fixture f;
    f.cluster.claim_states = bound;
    f.cluster.sandbox_states = ready;
    f.options.expected_image = "go1.26.8\nlockfile def\n";
    KubernetesSandboxProvider provider(f.options, f.logger);
    const auto message = message_of([&] { provider.open({}); });
    CHECK(message.find("Sandbox sb-1 runs an image built for go1.26.8 lockfile abc, but this daemon "
                       "has go1.26.8 lockfile def") != std::string::npos);
    CHECK(f.requests("DELETE").size() == 1);
  }
  {
    Fixture f;
    f.cluster.claim_states = bound;
    f.cluster.sandbox_states = ready;
    f.cluster.image_exit = 1;
    f.options.expected_image = "go1.26.8\nlockfile abc\n";
    KubernetesSandboxProvider provider(f.options, f.logger);
    CHECK(message_of([&] { provider.open({}); }).find("do not run a kode-gopher sandbox image") !=
          std::string::npos);
  }
}

TEST_CASE("a claim that never binds: gives up at the timeout, says on what, deletes the claim") {
  Fixture f;
  f.options.claim_timeout = std::chrono::seconds(1);
  f.cluster.claim_states = {{200, claim_json("")}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  const auto message = message_of([&] { provider.open({}); });
  CHECK(message == "Failed to start a Kubernetes sandbox (claim sandbox-claim-t1, deleted): Gave up after "
                   "1 s ([kubernetes] claim_timeout_s) waiting for claim sandbox-claim-t1 to bind a "
                   "sandbox of warm pool pool: check the warm pool (kubectl -n team get "
                   "sandboxwarmpool pool) and the claim's events");
  REQUIRE(f.requests("DELETE").size() == 1);
  CHECK(f.requests("DELETE")[0].uri == kClaim);
}

TEST_CASE("a claim deleted while it is awaited ends the wait at once") {
  Fixture f;
  f.cluster.claim_states = {{200, claim_json("")}, not_found("sandbox-claim-t1")};
  KubernetesSandboxProvider provider(f.options, f.logger);
  const auto started = std::chrono::steady_clock::now();
  CHECK(message_of([&] { provider.open({}); }).find("with 404 NotFound: sandbox-claim-t1 not found") !=
        std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
}

TEST_CASE("stop_opening() ends a wait at once (the claim deleted) and refuses later starts") {
  Fixture f;
  f.options.claim_timeout = std::chrono::seconds(60);
  f.cluster.claim_states = {{200, claim_json("")}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    provider.stop_opening();
  });
  const auto started = std::chrono::steady_clock::now();
  const auto message = message_of([&] { provider.open({}); });
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(3));
  stopper.join();
  CHECK(message.find("The daemon is stopping: it gave up waiting for claim sandbox-claim-t1") !=
        std::string::npos);
  CHECK(f.requests("DELETE").size() == 1);
  CHECK(message_of([&] { provider.open({}); }).find("it starts no sandbox") != std::string::npos);
  CHECK(f.requests("POST").size() == 1);
}

TEST_CASE("a missing warm pool ends the wait at once, named, and the claim is deleted (404 is fine)") {
  Fixture f;
  f.cluster.claim_states = {{200, claim_json("", "WarmPoolNotFound")}};
  f.cluster.delete_answer = not_found("sandbox-claim-t1");
  KubernetesSandboxProvider provider(f.options, f.logger);
  const auto message = message_of([&] { provider.open({}); });
  CHECK(message.find("(claim sandbox-claim-t1, deleted): SandboxWarmPool \"pool\" does not exist in "
                     "namespace team") != std::string::npos);
  CHECK(f.cluster.claim_gets == 1);
  CHECK(f.requests("DELETE").size() == 1);
}

TEST_CASE("a sandbox whose pod failed ends the wait at once, named, and the claim is deleted") {
  Fixture f;
  f.options.claim_timeout = std::chrono::seconds(60);
  f.cluster.claim_states = {{200, claim_json("sb-1", "SandboxNotReady")}};
  f.cluster.sandbox_states = {{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[
      {"type":"Ready","status":"False","reason":"DependenciesNotReady"},
      {"type":"Finished","status":"True","reason":"PodFailed","message":"OOMKilled"}]}})"}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  const auto started = std::chrono::steady_clock::now();
  const auto message = message_of([&] { provider.open({}); });
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  CHECK(message.find("(claim sandbox-claim-t1, deleted): Sandbox sb-1 in namespace team: its pod "
                     "ended before it was ready (PodFailed) (OOMKilled)") != std::string::npos);
  CHECK(f.requests("DELETE").size() == 1);
}

TEST_CASE("reap_orphans deletes this daemon's claims, found by its labels") {
  Fixture f;
  f.cluster.listed = {"sandbox-claim-a", "sandbox-claim-b"};
  KubernetesSandboxProvider provider(f.options, f.logger);
  CHECK(provider.reap_orphans() == 2);
  const auto gets = f.requests("GET");
  bool listed = false;
  for (const auto& r : gets) {
    listed = listed || r.uri == kClaims + "?labelSelector=agents.x-k8s.io%2Fcreated-by%3Dkode-gopher%2C"
                                          "kode-gopher%2Fdaemon-id%3Dunit";
  }
  CHECK(listed);
  const auto deletes = f.requests("DELETE");
  REQUIRE(deletes.size() == 2);
  CHECK(deletes[0].uri == kClaims + "/sandbox-claim-a");
  CHECK(deletes[1].uri == kClaims + "/sandbox-claim-b");
}

TEST_CASE("the lease is renewed every third of it; a claim gone from the cluster is not alive") {
  Fixture f;
  f.options.lease = std::chrono::seconds(3);
  const Answer ready_claim{200, claim_json("sb-1", "SandboxReady", "True")};
  const Answer ready_sandbox{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"};
  f.cluster.claim_states = {ready_claim};
  f.cluster.sandbox_states = {ready_sandbox};
  KubernetesSandboxProvider provider(f.options, f.logger);
  const auto started = std::chrono::steady_clock::now();
  auto sandbox = provider.open({});
  CHECK(sandbox->alive());
  // Two renewals come no sooner than 2 s (one per second), and not much later.
  while (f.requests("PATCH").size() < 2 &&
         std::chrono::steady_clock::now() - started < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1900));
  const auto patches = f.requests("PATCH");
  REQUIRE(patches.size() >= 2);
  CHECK(patches[0].uri == kClaim);
  CHECK(patches[0].content_type == "application/merge-patch+json");
  CHECK(patches[0].body.starts_with(R"({"spec":{"lifecycle":{"shutdownTime":")"));

  // Deleted behind the daemon's back: the next renewal finds it gone (alive() then asks no one).
  f.cluster.patch_answer = not_found("sandbox-claim-t1");
  const auto patched = f.requests("PATCH").size();
  while (f.requests("PATCH").size() == patched &&
         std::chrono::steady_clock::now() - started < std::chrono::seconds(15)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The cluster still shows the claim ready to anyone asking, so only the renewal's 404 can
  // make alive() false.
  bool alive = true;
  for (int i = 0; i < 150 && alive; ++i) {
    alive = sandbox->alive();
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK_FALSE(alive);
}

TEST_CASE("alive: false when the claim is bound elsewhere, expired or its sandbox not Ready; "
          "true when the API server cannot say") {
  Fixture f;
  const Answer ready_sandbox{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"};
  f.cluster.sandbox_states = {ready_sandbox};
  f.cluster.claim_states = {{200, claim_json("sb-1", "SandboxReady", "True")}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  auto rebound = provider.open({});
  f.cluster.claim_states = {{200, claim_json("sb-2", "SandboxReady", "True")}};
  f.cluster.claim_gets = 0;
  CHECK_FALSE(rebound->alive());

  f.cluster.claim_states = {{200, claim_json("sb-1", "SandboxReady", "True")}};
  f.cluster.claim_gets = 0;
  auto expiring = provider.open({});
  CHECK(expiring->alive());
  f.cluster.claim_states = {{200, claim_json("sb-1", "ClaimExpired")}};
  f.cluster.claim_gets = 0;
  CHECK_FALSE(expiring->alive());

  f.cluster.claim_states = {{200, claim_json("sb-1", "SandboxReady", "True")}};
  f.cluster.claim_gets = 0;
  auto unknown = provider.open({});
  f.cluster.claim_states = {{500, R"({"kind":"Status","reason":"InternalError"})"}};
  f.cluster.claim_gets = 0;
  CHECK(unknown->alive());
  f.cluster.claim_states = {{200, claim_json("sb-1", "SandboxReady", "True")}};
  f.cluster.claim_gets = 0;
  f.cluster.sandbox_states = {{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"False","reason":"DependenciesNotReady"}]}})"}};
  f.cluster.sandbox_gets = 0;
  CHECK_FALSE(unknown->alive());
}

namespace {

// One request to the egress gateway on loopback; its whole answer.
std::string through_gateway(int port, const std::string& request) {
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  std::string answer;
  char buffer[4096];
  for (int got; (got = socket.receiveBytes(buffer, sizeof buffer)) > 0;) answer.append(buffer, got);
  return answer;
}

std::string basic_header(const std::string& userinfo) {
  std::ostringstream encoded;
  Poco::Base64Encoder encoder(encoded);
  encoder.rdbuf()->setLineLength(0);
  encoder << userinfo;
  encoder.close();
  return "Proxy-Authorization: Basic " + encoded.str() + "\r\n";
}

// "user:secret" from an HTTPS_PROXY value http://user:secret@host:port, as the /execute body
// carried it.
std::string userinfo_in(const std::string& body) {
  const auto at = body.find("\"HTTPS_PROXY\":\"http://");
  REQUIRE(at != std::string::npos);
  const auto start = at + std::string("\"HTTPS_PROXY\":\"http://").size();
  return body.substr(start, body.find('@', start) - start);
}

}  // namespace

TEST_CASE("with egress_proxy_address each call's commands reach the daemon's proxy with a credential of that call alone") {
  Fixture f;
  f.cluster.claim_states = {{200, claim_json("sb-1", "DependenciesReady", "True")}};
  f.cluster.sandbox_states = {{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"}};
  KubernetesEgressOptions egress;
  egress.listen.host = "127.0.0.1";
  egress.listen.port = 0;  // a free one
  egress.address = "kode-gopherd-egress:3128";
  egress.allowlist = EgressAllowlist::parse({"*.googleapis.com"}, {443});
  egress.tls = std::make_shared<EgressTls>(f.dir / "egress-ca", "");
  f.options.egress = egress;
  KubernetesSandboxProvider provider(f.options, f.logger);
  const int port = provider.egress_gateway()->port();
  auto sandbox = provider.open({});
  CHECK(sandbox->reads_api_requests());  // so calls with an API policy run here
  CHECK(provider.isolation_summary().back().find("kode-gopherd-egress:3128") != std::string::npos);

  sandbox->begin_egress_call({.sealed = SealedToken{"kg-sealed.p", "ya29.real", {}}, .refuse = {}});
  auto handle = sandbox->call_handle({});
  const kg::plugin::SourceFile program{"main.go", "package main\n"};
  handle->replace_workdir({&program, 1});
  kg::plugin::CommandSpec spec;
  spec.command = "./program";
  spec.env = {{"NO_PROXY", "example.internal"}, {"GOFLAGS", "-mod=mod"}};
  handle->run_command(spec);
  handle->run_command(spec);  // the bundle is uploaded once per workdir
  std::vector<SeenRequest> uploads, executes;
  for (const auto& r : f.server.seen()) {
    if (r.uri.starts_with("/upload-tar")) uploads.push_back(r);
    if (r.uri == "/execute" && r.body.find("./program") != std::string::npos) executes.push_back(r);
  }
  REQUIRE(uploads.size() == 2);  // the program (replacing the workdir), then the bundle beside it
  CHECK(uploads[0].uri == "/upload-tar?replace=1");
  CHECK(uploads[1].uri == "/upload-tar");
  CHECK(uploads[1].body.find(".kode-gopher/ca-bundle.pem") != std::string::npos);
  CHECK(uploads[1].body.find(egress.tls->ca_certificate_pem().substr(0, 200)) != std::string::npos);
  REQUIRE(executes.size() == 2);
  const std::string& body = executes[0].body;
  INFO(body);
  CHECK(body.find("@kode-gopherd-egress:3128\"") != std::string::npos);
  CHECK(body.find(R"("SSL_CERT_FILE":"/app/.kode-gopher/ca-bundle.pem")") != std::string::npos);
  CHECK(body.find(R"("NO_PROXY":"example.internal")") != std::string::npos);  // the command's own wins
  CHECK(body.find(R"("GOFLAGS":"-mod=mod")") != std::string::npos);
  const std::string userinfo = userinfo_in(body);

  // The credential names this sandbox's call: its refusal lands in this call's report.
  const std::string refused =
      through_gateway(port, "CONNECT unlisted.example:443 HTTP/1.1\r\nHost: unlisted.example\r\n" +
                                basic_header(userinfo) + "\r\n");
  CHECK(refused.starts_with("HTTP/1.1 403"));
  // Without it, or with the secret changed: 407, no call's.
  CHECK(through_gateway(port, "CONNECT unlisted.example:443 HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 407"));
  std::string forged = userinfo;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  CHECK(through_gateway(port, "CONNECT unlisted.example:443 HTTP/1.1\r\n" + basic_header(forged) + "\r\n")
            .starts_with("HTTP/1.1 407"));
  const auto report = sandbox->end_egress_call();
  REQUIRE(report.refusals.size() == 1);
  CHECK(report.refusals[0].starts_with("egress refused CONNECT unlisted.example:443"));
  // The call is over: its credential opens nothing.
  CHECK(through_gateway(port, "CONNECT unlisted.example:443 HTTP/1.1\r\n" + basic_header(userinfo) + "\r\n")
            .starts_with("HTTP/1.1 407"));
  // The next call gets a credential of its own.
  sandbox->begin_egress_call({});
  auto next = sandbox->call_handle({});
  next->run_command(spec);
  const auto last = f.server.seen().back();
  CHECK(userinfo_in(last.body) != userinfo);
  sandbox->end_egress_call();
}

TEST_CASE("without egress_proxy_address a pod's egress is the NetworkPolicy's and a sealed call is told so") {
  Fixture f;
  f.cluster.claim_states = {{200, claim_json("sb-1", "DependenciesReady", "True")}};
  f.cluster.sandbox_states = {{200, R"({"metadata":{"name":"sb-1"},"status":{"conditions":[{"type":"Ready",
                                   "status":"True","reason":"DependenciesReady"}]}})"}};
  KubernetesSandboxProvider provider(f.options, f.logger);
  CHECK(provider.egress_gateway() == nullptr);
  auto sandbox = provider.open({});
  CHECK_FALSE(sandbox->reads_api_requests());
  sandbox->begin_egress_call({.sealed = SealedToken{"kg-sealed.p", "ya29.real", {}}, .refuse = {}});
  kg::plugin::CommandSpec spec;
  spec.command = "./program";
  sandbox->call_handle({})->run_command(spec);
  CHECK(f.server.seen().back().body.find("HTTPS_PROXY") == std::string::npos);
  const auto report = sandbox->end_egress_call();
  REQUIRE(report.refusals.size() == 1);
  CHECK(report.refusals[0].find("egress_proxy_address is not set") != std::string::npos);
}
