// The API policy (docs/api-policy.md): read-only access and allowlists of projects and
// buckets, set by the daemon's [api_policy] keys and narrowed, never widened, by a call's
// "api_policy". The egress proxy asks it about every request it can read (sealed credentials)
// before forwarding it; a refusal's message names the rule and what to do. Pure functions on
// immutable values; any thread.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "api_call_classifier.hpp"
#include "daemon_api/execute_request.hpp"

namespace kg::api_policy {

struct ApiPolicy {
  bool read_only = false;
  std::vector<std::string> projects;  // empty: any project
  std::vector<std::string> buckets;   // empty: any bucket
  // Whether anything is refused on a request's content.
  bool restricts() const { return read_only || !projects.empty() || !buckets.empty(); }
};

// One call's policy, and which of its rules the call itself asked for (the message says who can
// lift a rule: the caller, or only the daemon's operator).
struct CallApiPolicy {
  ApiPolicy effective;
  bool read_only_from_call = false;
  bool projects_from_call = false;
  bool buckets_from_call = false;
};

// A call asked for more than the daemon allows (a project or bucket outside its allowlist).
class PolicyWideningError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Narrows the daemon's policy by a call's: read-only once on stays on (false asks nothing);
// a call's allowlist replaces an empty one and must be a subset of a non-empty one (else
// PolicyWideningError naming the names and the daemon's list). Names were checked by the codec.
CallApiPolicy narrow_api_policy(const ApiPolicy& daemon,
                                const wire::daemon_api::ExecuteApiPolicy& call);

struct ApiRefusal {
  std::string rule;     // read_only | buckets | projects
  std::string message;  // "kode-gopher API policy: ...": what was refused, by what, what to do
};

// Whether `policy` refuses `call`, checked in the order read_only, buckets, projects. A request
// an allowlist needs to know the target of, but whose target cannot be told, is refused (never
// let through): a storage request with no bucket it names under a bucket allowlist; a request
// naming no project under a project allowlist, unless it names only buckets the bucket
// allowlist lists (that list then stands for the project). So is a request that cannot be
// classified for certain (ApiCall::ambiguous_because), under the first rule of the three that
// applies to it.
std::optional<ApiRefusal> decide(const CallApiPolicy& policy, const ApiCall& call);

// EgressCallSetup::refuse for a call: classifies each request and returns the refusal's
// message, or nullopt. Holds its own copy of the policy; safe on the proxy's threads.
std::function<std::optional<std::string>(const sandbox::ApiRequestFacts&)> refusal_check(
    CallApiPolicy policy);

}  // namespace kg::api_policy
