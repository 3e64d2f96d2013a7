// The agent-sandbox objects the kubernetes provider reads and writes (docs/contracts.md §6, the CRDs
// of sigs.k8s.io/agent-sandbox v1.0.1): the SandboxClaim it creates against a SandboxWarmPool
// and renews, and the Sandbox the claim binds. JSON in and out (RapidJSON); no I/O.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::sandbox {

inline constexpr std::string_view kClaimsApi = "/apis/extensions.agents.x-k8s.io/v1beta1";
inline constexpr std::string_view kSandboxesApi = "/apis/agents.x-k8s.io/v1beta1";
inline constexpr std::string_view kWarmPoolsApi = kClaimsApi;
// Every claim of kode-gopher: agents.x-k8s.io/created-by=kode-gopher, plus the daemon's identity
// (so a restarted daemon finds, and deletes, what its predecessor left).
inline constexpr std::string_view kCreatedByLabel = "agents.x-k8s.io/created-by";
inline constexpr std::string_view kCreatedByValue = "kode-gopher";
inline constexpr std::string_view kDaemonLabel = "kode-gopher/daemon-id";
inline constexpr std::string_view kSessionAnnotation = "kode-gopher/session-id";

struct ClaimRequest {
  std::string warm_pool;
  std::string daemon_id;
  std::string session_id;  // empty: a warm sandbox, not yet a session's
  std::chrono::system_clock::time_point shutdown_time;
};

// The POST body of a new claim (generateName sandbox-claim-, the labels, spec.warmPoolRef and
// spec.lifecycle {shutdownTime, shutdownPolicy: Delete}).
std::string claim_body(const ClaimRequest& request);
// The merge-patch body that renews a claim's lease to `shutdown_time`.
std::string lease_patch_body(std::chrono::system_clock::time_point shutdown_time);
// The label selector (URL-encoded) of this daemon's claims.
std::string daemon_claims_selector(std::string_view daemon_id);

struct Condition {
  std::string type;
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
};

struct ClaimState {
  std::string name;
  std::string sandbox_name;  // status.sandbox.name; empty until bound
  std::string service_fqdn;  // status.sandbox.serviceFQDN
  std::vector<std::string> pod_ips;
  std::optional<Condition> ready;  // the Ready condition
  bool deleting = false;           // metadata.deletionTimestamp is set
};

struct SandboxState {
  std::string name;
  bool ready = false;  // condition Ready=True
  std::optional<Condition> ready_condition;
  std::optional<Condition> finished;  // condition Finished=True: the pod Succeeded or Failed
  std::string service_fqdn;
  std::vector<std::string> pod_ips;
  bool deleting = false;
};

// Throw std::runtime_error when the JSON is not such an object.
ClaimState parse_claim(std::string_view json);
SandboxState parse_sandbox(std::string_view json);
// metadata.name of every item of a list.
std::vector<std::string> parse_item_names(std::string_view json);
// The warm pool's spec.sandboxTemplateRef.name (empty when absent), and a template's
// spec.podTemplate.spec.runtimeClassName (empty when absent).
std::string parse_warm_pool_template(std::string_view json);
std::string parse_template_runtime_class(std::string_view json);

// Why a claim will never become ready, with what to do, or nullopt while it may still: the
// terminal reasons (InvalidMetadata, EnvVarsInjectionRejected, VolumeClaimTemplatesError,
// ClaimExpired, SandboxExpired) and a missing warm pool or template (WarmPoolNotFound,
// TemplateNotFound), or a claim being deleted.
std::optional<std::string> claim_failure(const ClaimState& claim, std::string_view namespace_,
                                         std::string_view warm_pool);
// Why a bound sandbox will never become ready, with where to look, or nullopt while it may
// still: its pod ended (condition Finished: PodFailed, PodSucceeded) or it expired (Ready=False,
// SandboxExpired). Waiting out [kubernetes] claim_timeout_s for those only delays the error.
std::optional<std::string> sandbox_failure(const SandboxState& sandbox, std::string_view namespace_);

}  // namespace kg::sandbox
