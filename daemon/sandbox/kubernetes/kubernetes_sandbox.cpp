#include "kubernetes_sandbox.hpp"

#include "error_chain.hpp"
#include "kubernetes_sandbox_handle.hpp"
#include "kubernetes_sandbox_provider.hpp"
#include "retrying_http_client.hpp"
#include "sandbox_paths.hpp"

namespace kg::sandbox {
namespace {

// Wraps the transport: retries for file operations inside, interruptible outside (so an
// interrupt also stops the retries).
std::unique_ptr<net::HttpClient> wrap(std::unique_ptr<net::HttpClient> http,
                                      InterruptibleHttpClient*& interruptible) {
  auto outer = std::make_unique<InterruptibleHttpClient>(
      std::make_unique<RetryingHttpClient>(std::move(http)));
  interruptible = outer.get();
  return outer;
}

}  // namespace

KubernetesSandbox::KubernetesSandbox(KubernetesSandboxProvider& provider, std::string claim_name,
                                     std::string sandbox_name, std::unique_ptr<net::HttpClient> http)
    : provider_(provider),
      claim_name_(std::move(claim_name)),
      sandbox_name_(std::move(sandbox_name)),
      interruptible_(nullptr),
      client_(wrap(std::move(http), interruptible_)) {
  if (const auto& egress = provider_.egress(); egress && provider_.egress_gateway() != nullptr) {
    egress_ = std::make_shared<EgressProxy>(sandbox_name_, egress->allowlist, provider_.logger(),
                                            EgressProxyLimits{}, egress->tls);
  }
  provider_.track(this);
}

KubernetesSandbox::~KubernetesSandbox() {
  provider_.untrack(this);
  if (egress_) {
    if (!egress_user_.empty()) provider_.egress_gateway()->revoke(egress_user_);
    egress_->stop();
  }
  try {
    provider_.delete_claim(claim_name_);
    provider_.logger().log(plugin::LogLevel::debug, "Kubernetes: deleted claim " + claim_name_);
  } catch (const std::exception& e) {
    provider_.logger().log(plugin::LogLevel::warn,
                           "Kubernetes: cannot delete claim " + claim_name_ +
                               " (its lease ends it, or the next daemon start): " +
                               describe_error_chain(e));
  }
}

bool KubernetesSandbox::alive() {
  if (gone_) return false;
  try {
    const ClaimState claim = parse_claim(provider_.kube().get(provider_.claim_path(claim_name_)));
    if (claim_failure(claim, provider_.kube_namespace(), "") || claim.sandbox_name != sandbox_name_) {
      gone_ = true;
      return false;
    }
    const SandboxState sandbox =
        parse_sandbox(provider_.kube().get(provider_.sandbox_path(sandbox_name_)));
    if (sandbox.deleting || !sandbox.ready) {
      gone_ = true;
      return false;
    }
    return true;
  } catch (const KubeApiError& e) {
    if (e.status() == 404) {
      gone_ = true;
      return false;
    }
  } catch (const std::exception&) {
  }
  // The API server did not say: the sandbox may well be there.
  return true;
}

std::unique_ptr<CallHandle> KubernetesSandbox::call_handle(const CallServices& services) {
  return std::make_unique<KubernetesSandboxHandle>(client_, services, call_egress_);
}

void KubernetesSandbox::begin_egress_call(EgressCallSetup setup) {
  sealed_call_ = setup.sealed.has_value();
  if (!egress_) return;
  auto* gateway = provider_.egress_gateway();
  if (!egress_user_.empty()) gateway->revoke(egress_user_);  // a call that never ended
  egress_->begin_call(std::move(setup));
  const EgressCallCredential credential = gateway->admit(egress_);
  egress_user_ = credential.user;
  // The secret is base64url and the user hex: both safe in a URL's userinfo as they are.
  const std::string proxy = "http://" + credential.user + ":" + credential.secret + "@" +
                            provider_.egress()->address;
  const std::string direct = "localhost,127.0.0.1,::1";  // the metadata emulator stays direct
  call_egress_.env = {{"HTTPS_PROXY", proxy}, {"https_proxy", proxy}, {"HTTP_PROXY", proxy},
                      {"http_proxy", proxy},  {"NO_PROXY", direct},   {"no_proxy", direct}};
  call_egress_.trust_bundle = provider_.trust_bundle();
  if (!call_egress_.trust_bundle.empty()) {
    for (const char* name : kCaBundleVariables) call_egress_.env.emplace_back(name, kPodCaBundlePath);
  }
  call_egress_.active = true;
}

EgressCallReport KubernetesSandbox::end_egress_call() {
  if (egress_) {
    call_egress_ = {};
    if (!egress_user_.empty()) provider_.egress_gateway()->revoke(egress_user_);
    egress_user_.clear();
    sealed_call_ = false;
    return egress_->end_call();
  }
  EgressCallReport report;
  if (sealed_call_) {
    report.refusals.push_back(
        "sealed credentials: this daemon is no egress proxy for its Kubernetes sandboxes "
        "([kubernetes] egress_proxy_address is not set), so nothing put the real token in the "
        "placeholder's place and the program held only a placeholder that no Google API "
        "accepts; set egress_proxy_address (docs/kubernetes.md), or the credential plugin's "
        "mode = access-token");
    sealed_call_ = false;
  }
  return report;
}

void KubernetesSandbox::interrupt() noexcept { interruptible_->interrupt(); }

}  // namespace kg::sandbox
