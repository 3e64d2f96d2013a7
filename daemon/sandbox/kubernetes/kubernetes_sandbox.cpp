#include "kubernetes_sandbox.hpp"

#include "error_chain.hpp"
#include "kubernetes_sandbox_handle.hpp"
#include "kubernetes_sandbox_provider.hpp"
#include "retrying_http_client.hpp"

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
  provider_.track(this);
}

KubernetesSandbox::~KubernetesSandbox() {
  provider_.untrack(this);
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
  return std::make_unique<KubernetesSandboxHandle>(client_, services);
}

void KubernetesSandbox::interrupt() noexcept { interruptible_->interrupt(); }

}  // namespace kg::sandbox
