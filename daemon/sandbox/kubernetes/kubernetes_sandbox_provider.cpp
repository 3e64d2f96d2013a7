#include "kubernetes_sandbox_provider.hpp"

#include <unistd.h>

#include <cctype>
#include <thread>

#include "error_chain.hpp"
#include "kubernetes_sandbox.hpp"
#include "sandbox_paths.hpp"
#include "tcp_http_client.hpp"

namespace kg::sandbox {
namespace {

constexpr std::uint16_t kSandboxPort = 8888;

// How long one health check through the router may take while a new sandbox is awaited.
constexpr std::chrono::milliseconds kHealthTimeout{5'000};

std::string seconds_text(std::chrono::seconds s) { return std::to_string(s.count()) + " s"; }

}  // namespace

KubernetesSandboxProvider::KubernetesSandboxProvider(KubernetesProviderOptions options,
                                                     plugin::Logger& logger)
    : options_(std::move(options)), logger_(logger) {
  try {
    auto config = resolve_kube_config(options_.kubeconfig, options_.context);
    namespace_ = !options_.namespace_.empty() ? options_.namespace_
                 : !config.namespace_.empty() ? config.namespace_
                                              : "default";
    if (config.insecure_skip_tls_verify) {
      warnings_.push_back("The kubeconfig (" + config.source + ") sets insecure-skip-tls-verify: "
                          "the API server's certificate is not checked");
    }
    kube_ = std::make_unique<KubeClient>(std::move(config), options_.api_timeout);
  } catch (...) {
    std::throw_with_nested(plugin::SandboxError(
        "Cannot use Kubernetes ([sandbox] provider = kubernetes): fix the [kubernetes] section "
        "or the kubeconfig it names"));
  }
  if (options_.daemon_id.empty() || !is_dns1123_name(options_.daemon_id) ||
      options_.daemon_id.size() > 63 || options_.daemon_id.find('.') != std::string::npos) {
    throw plugin::SandboxError("[kubernetes] daemon_id \"" + options_.daemon_id +
                               "\" is not a DNS-1123 label (lowercase letters, digits and '-', at "
                               "most 63): set one that names this daemon");
  }
  describe_warm_pool();
  if (options_.egress) {
    try {
      gateway_ = std::make_unique<EgressGateway>(options_.egress->listen, logger_);
    } catch (const std::exception& e) {
      std::throw_with_nested(plugin::SandboxError(
          "Cannot start the sandboxes' egress proxy ([kubernetes] egress_proxy_listen)"));
    }
    if (options_.egress->tls) trust_bundle_ = options_.egress->tls->trust_bundle_pem();
  }
  for (const auto& warning : warnings_) logger_.log(plugin::LogLevel::warn, "Sandboxes: " + warning);
  lease_thread_ = std::thread([this] { renew_leases(); });
}

KubernetesSandboxProvider::~KubernetesSandboxProvider() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (lease_thread_.joinable()) lease_thread_.join();
}

std::string KubernetesSandboxProvider::claim_path(const std::string& claim_name) const {
  return std::string(kClaimsApi) + "/namespaces/" + namespace_ + "/sandboxclaims/" + claim_name;
}

std::string KubernetesSandboxProvider::sandbox_path(const std::string& sandbox_name) const {
  return std::string(kSandboxesApi) + "/namespaces/" + namespace_ + "/sandboxes/" + sandbox_name;
}

void KubernetesSandboxProvider::describe_warm_pool() {
  const std::string pool = "warm pool " + options_.warm_pool + " in namespace " + namespace_;
  try {
    const std::string template_name = parse_warm_pool_template(kube_->get(
        std::string(kWarmPoolsApi) + "/namespaces/" + namespace_ + "/sandboxwarmpools/" +
        options_.warm_pool));
    if (template_name.empty()) {
      pool_note_ = pool + " names no SandboxTemplate";
      return;
    }
    const std::string runtime_class = parse_template_runtime_class(kube_->get(
        std::string(kClaimsApi) + "/namespaces/" + namespace_ + "/sandboxtemplates/" + template_name));
    if (runtime_class.empty()) {
      pool_note_ = "SandboxTemplate " + template_name + " (" + pool +
                   ") sets no runtimeClassName: pods run under the nodes' default runtime";
      warnings_.push_back("SandboxTemplate " + template_name + " sets no runtimeClassName, so "
                          "sandboxes are ordinary containers, not gVisor: use the gvisor or gke "
                          "overlay of manifests/");
    } else {
      pool_note_ = "SandboxTemplate " + template_name + " (" + pool + ") sets runtimeClassName " +
                   runtime_class + " (the daemon cannot check what the nodes run for it)";
    }
  } catch (const std::exception& e) {
    pool_note_ = "the isolation of " + pool + " is unknown: its template could not be read (" +
                 describe_error_chain(e) + ")";
    logger_.log(plugin::LogLevel::warn, "Kubernetes: " + pool_note_);
  }
}

std::vector<std::string> KubernetesSandboxProvider::isolation_summary() const {
  return {
      "kubernetes: agent-sandbox claims on " + options_.warm_pool + " in namespace " + namespace_ +
          " of " + kube_->server() + " (" + kube_->config().source + ")",
      "isolation is the pod's, as its SandboxTemplate sets it: " + pool_note_,
      options_.router_host.empty()
          ? "sandboxes reached directly at their serviceFQDN (else pod IP), port 8888 (in-cluster)"
          : "sandboxes reached through the sandbox-router at " + options_.router_host + ":" +
                std::to_string(options_.router_port),
      "claims labelled " + std::string(kDaemonLabel) + "=" + options_.daemon_id + ", lease " +
          seconds_text(options_.lease) + " renewed every " + seconds_text(options_.lease / 3),
      options_.egress
          ? "egress: each call's commands reach the daemon's egress proxy at " +
                options_.egress->address + " (listening on " + options_.egress->listen.host +
                ":" + std::to_string(gateway_->port()) +
                ") with a credential of that call alone; the SandboxTemplate's NetworkPolicy "
                "must admit only it and DNS"
          : "egress: what the SandboxTemplate's NetworkPolicy admits (the daemon is no egress "
            "path: no [kubernetes] egress_proxy_address)",
  };
}

std::unique_ptr<net::HttpClient> KubernetesSandboxProvider::transport_to(const SandboxState& sandbox) const {
  if (!options_.router_host.empty()) {
    return std::make_unique<net::TcpHttpClient>(
        options_.router_host, options_.router_port,
        std::vector<std::pair<std::string, std::string>>{{"X-Sandbox-ID", sandbox.name},
                                                         {"X-Sandbox-Namespace", namespace_},
                                                         {"X-Sandbox-Port", "8888"}});
  }
  std::string host = sandbox.service_fqdn;
  if (host.empty() && !sandbox.pod_ips.empty()) host = sandbox.pod_ips.front();
  if (host.empty()) {
    throw plugin::SandboxError("Sandbox " + sandbox.name + " has neither status.serviceFQDN nor a "
                               "pod IP: give its SandboxTemplate spec.service: true, or set "
                               "[kubernetes] router");
  }
  return std::make_unique<net::TcpHttpClient>(host, kSandboxPort);
}

SandboxState KubernetesSandboxProvider::wait_until_ready(const std::string& claim_name,
                                                         const SandboxRequest& request) {
  const auto deadline = std::chrono::steady_clock::now() + options_.claim_timeout;
  std::string last_line;
  auto progress = [&](const std::string& line) {
    if (line == last_line) return;
    last_line = line;
    logger_.log(plugin::LogLevel::debug, "Kubernetes: " + line);
    if (request.progress) request.progress(line);
  };
  std::string waiting_for = "the claim to bind a sandbox";
  for (;;) {
    bool claim_read = false;
    try {
      const ClaimState claim = parse_claim(kube_->get(claim_path(claim_name)));
      claim_read = true;
      if (const auto failure = claim_failure(claim, namespace_, options_.warm_pool)) {
        throw plugin::SandboxError(*failure);
      }
      if (claim.sandbox_name.empty()) {
        waiting_for = "claim " + claim_name + " to bind a sandbox of warm pool " + options_.warm_pool;
        progress("waiting for " + waiting_for +
                 (claim.ready && !claim.ready->reason.empty() ? " (" + claim.ready->reason + ")" : ""));
      } else {
        const SandboxState sandbox = parse_sandbox(kube_->get(sandbox_path(claim.sandbox_name)));
        if (sandbox.deleting) throw plugin::SandboxError("Sandbox " + sandbox.name + " is being deleted");
        if (const auto failure = sandbox_failure(sandbox, namespace_)) {
          throw plugin::SandboxError(*failure);
        }
        if (sandbox.ready) {
          waiting_for = "sandbox " + sandbox.name + " to answer" +
                        (options_.router_host.empty() ? "" : " through the router");
          progress("waiting for " + waiting_for);
          SandboxClient probe(transport_to(sandbox));
          if (probe.healthy(kHealthTimeout)) return sandbox;
        } else {
          const auto& c = sandbox.ready_condition;
          waiting_for = "sandbox " + sandbox.name + " to be Ready";
          progress("waiting for " + waiting_for +
                   (c && !c->reason.empty() ? " (" + c->reason +
                                                  (c->message.empty() ? "" : ": " + c->message) + ")"
                                            : ""));
        }
      }
    } catch (const KubeApiError& e) {
      // 404 for a sandbox the claim just named: the controller has not made it yet; 5xx: the
      // API server is restarting or overloaded. Both may pass before the deadline.
      // (A 404 for the claim itself: someone deleted it; that does not pass.)
      if (e.status() < 500 && (e.status() != 404 || e.reason() != "NotFound" || !claim_read)) throw;
      if (e.status() >= 500) progress("the API server failed (" + std::string(e.what()) + "); trying again");
    } catch (const KubeTransportError& e) {
      progress("the API server did not answer (" + std::string(e.what()) + "); trying again");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw plugin::SandboxError(
          "Gave up after " + seconds_text(options_.claim_timeout) + " ([kubernetes] " +
          "claim_timeout_s) waiting for " + waiting_for + ": check the warm pool (kubectl -n " +
          namespace_ + " get sandboxwarmpool " + options_.warm_pool + ") and the claim's events");
    }
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, options_.poll_interval, [&] { return opening_stopped_; })) {
      throw plugin::SandboxError("The daemon is stopping: it gave up waiting for " + waiting_for);
    }
  }
}

void KubernetesSandboxProvider::stop_opening() noexcept {
  {
    const std::lock_guard lock(mutex_);
    opening_stopped_ = true;
  }
  wake_.notify_all();
}

std::unique_ptr<Sandbox> KubernetesSandboxProvider::open(const SandboxRequest& request) {
  ClaimRequest claim_request{.warm_pool = options_.warm_pool,
                             .daemon_id = options_.daemon_id,
                             .session_id = request.session_id,
                             .shutdown_time = std::chrono::system_clock::now() + options_.lease};
  std::string claim_name;
  try {
    {
      const std::lock_guard lock(mutex_);
      if (opening_stopped_) throw plugin::SandboxError("The daemon is stopping: it starts no sandbox");
    }
    if (request.progress) request.progress("claiming a sandbox from warm pool " + options_.warm_pool);
    claim_name = parse_claim(kube_->post(std::string(kClaimsApi) + "/namespaces/" + namespace_ +
                                             "/sandboxclaims",
                                         claim_body(claim_request)))
                     .name;
    if (claim_name.empty()) throw std::runtime_error("The API server's new claim has no name");
    {
      const std::lock_guard lock(mutex_);
      ++pending_claims_;
    }
    const SandboxState sandbox = wait_until_ready(claim_name, request);
    logger_.log(plugin::LogLevel::debug, "Kubernetes: claim " + claim_name + " ready as sandbox " +
                                             sandbox.name);
    check_image(sandbox);
    auto ready = std::make_unique<KubernetesSandbox>(*this, claim_name, sandbox.name,
                                                     transport_to(sandbox));
    const std::lock_guard lock(mutex_);
    --pending_claims_;  // tracked as live from here
    return ready;
  } catch (...) {
    if (!claim_name.empty()) {
      {
        const std::lock_guard lock(mutex_);
        --pending_claims_;
        ++claim_failures_;
      }
      try {
        delete_claim(claim_name);
      } catch (const std::exception& e) {
        logger_.log(plugin::LogLevel::warn, "Kubernetes: cannot delete claim " + claim_name +
                                                " after a failed start (the next daemon start "
                                                "deletes it): " + describe_error_chain(e));
      }
    }
    std::throw_with_nested(plugin::SandboxError(
        "Failed to start a Kubernetes sandbox" +
        (claim_name.empty() ? std::string() : " (claim " + claim_name + ", deleted)")));
  }
}

void KubernetesSandboxProvider::check_image(const SandboxState& sandbox) const {
  if (options_.expected_image.empty()) return;
  SandboxClient client(transport_to(sandbox));
  plugin::CommandSpec spec;
  spec.command = std::string("cat ") + kSandboxImageStampPath;
  spec.timeout_ms = 30'000;
  const auto outcome = client.run_command(spec);
  if (outcome.exit_code != 0) {
    throw plugin::SandboxError(
        "Sandbox " + sandbox.name + " has no " + kSandboxImageStampPath +
        ": its pods do not run a kode-gopher sandbox image (sandbox/Dockerfile); set the "
        "SandboxTemplate's image to one built from this daemon's checkout");
  }
  if (outcome.stdout_text != options_.expected_image) {
    auto one_line = [](std::string text) {
      for (auto& c : text) c = c == '\n' ? ' ' : c;
      while (!text.empty() && text.back() == ' ') text.pop_back();
      return text;
    };
    throw plugin::SandboxError(
        "Sandbox " + sandbox.name + " runs an image built for " +
        one_line(outcome.stdout_text) + ", but this daemon has " +
        one_line(options_.expected_image) +
        ": programs would build against another toolchain or lockfile. Build the sandbox image "
        "from the daemon's checkout (docs/kubernetes.md) and roll the warm pool");
  }
}

void KubernetesSandboxProvider::delete_claim(const std::string& claim_name) {
  try {
    kube_->remove(claim_path(claim_name));
  } catch (const KubeApiError& e) {
    if (e.status() != 404) throw;
  }
}

int KubernetesSandboxProvider::reap_orphans() {
  std::vector<std::string> names;
  try {
    names = parse_item_names(kube_->get(std::string(kClaimsApi) + "/namespaces/" + namespace_ +
                                        "/sandboxclaims?labelSelector=" +
                                        daemon_claims_selector(options_.daemon_id)));
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, "Kubernetes: cannot list this daemon's claims to delete "
                                        "what a previous daemon left: " + describe_error_chain(e));
    return 0;
  }
  int reaped = 0;
  for (const auto& name : names) {
    {
      const std::lock_guard lock(mutex_);
      bool owned = false;
      for (const auto* sandbox : live_) owned = owned || sandbox->id() == name;
      if (owned) continue;
    }
    try {
      delete_claim(name);
      ++reaped;
      logger_.log(plugin::LogLevel::info, "Kubernetes: deleted claim " + name + ", which no "
                                          "session of this daemon owns");
    } catch (const std::exception& e) {
      logger_.log(plugin::LogLevel::warn, "Kubernetes: cannot delete leftover claim " + name +
                                              ": " + describe_error_chain(e));
    }
  }
  return reaped;
}

std::optional<ProviderMetrics> KubernetesSandboxProvider::metrics() {
  const std::lock_guard lock(mutex_);
  ProviderMetrics metrics;
  metrics.claims = {{"pending", pending_claims_}, {"ready", live_.size()}};
  metrics.claim_failures = claim_failures_;
  return metrics;
}

void KubernetesSandboxProvider::track(KubernetesSandbox* sandbox) {
  const std::lock_guard lock(mutex_);
  live_.insert(sandbox);
}

void KubernetesSandboxProvider::untrack(KubernetesSandbox* sandbox) noexcept {
  const std::lock_guard lock(mutex_);
  live_.erase(sandbox);
}

void KubernetesSandboxProvider::renew_leases() {
  const auto every = std::max<std::chrono::milliseconds>(options_.lease / 3, std::chrono::seconds(1));
  std::unique_lock lock(mutex_);
  for (;;) {
    if (wake_.wait_for(lock, every, [&] { return stopping_; })) return;
    std::vector<std::string> claims;
    for (const auto* sandbox : live_) claims.push_back(sandbox->id());
    lock.unlock();
    const std::string body = lease_patch_body(std::chrono::system_clock::now() + options_.lease);
    std::vector<std::string> gone;
    for (const auto& claim : claims) {
      try {
        kube_->merge_patch(claim_path(claim), body);
      } catch (const KubeApiError& e) {
        if (e.status() == 404) gone.push_back(claim);
        logger_.log(plugin::LogLevel::warn, "Kubernetes: cannot renew the lease of claim " + claim +
                                                ": " + e.what());
      } catch (const std::exception& e) {
        logger_.log(plugin::LogLevel::warn, "Kubernetes: cannot renew the lease of claim " + claim +
                                                ": " + describe_error_chain(e));
      }
    }
    lock.lock();
    for (auto* sandbox : live_) {
      for (const auto& claim : gone) {
        if (sandbox->id() == claim) sandbox->mark_gone();
      }
    }
  }
}

}  // namespace kg::sandbox
