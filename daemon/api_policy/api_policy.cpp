#include "api_policy.hpp"

#include <algorithm>

namespace kg::api_policy {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::vector<std::string> narrowed(const std::vector<std::string>& daemon,
                                  const std::optional<std::vector<std::string>>& call,
                                  const char* key) {
  if (!call) return daemon;
  std::vector<std::string> out;
  std::vector<std::string> outside;
  for (const auto& name : *call) {
    if (!daemon.empty() && !listed(daemon, name)) {
      outside.push_back(name);
    } else if (!listed(out, name)) {
      out.push_back(name);
    }
  }
  if (!outside.empty()) {
    throw PolicyWideningError(std::string("api_policy.") + key + ": " + joined(outside) +
                              (outside.size() == 1 ? " is" : " are") +
                              " not in the daemon's [api_policy] " + key + " (" + joined(daemon) +
                              "); a call may only narrow that list, so name some of those or "
                              "ask the daemon's operator to add it");
  }
  return out;
}

std::string target_of(const ApiCall& call) {
  return call.method + (call.resource.empty() ? "" : " on " + call.resource);
}

std::string who_sets(bool from_call, const char* key) {
  return from_call ? std::string("this call's api_policy.") + key
                   : std::string("the daemon's [api_policy] ") + key;
}

ApiRefusal refusal(const char* rule, std::string what) {
  return {rule, "kode-gopher API policy: " + std::move(what)};
}

}  // namespace

CallApiPolicy narrow_api_policy(const ApiPolicy& daemon,
                                const wire::daemon_api::ExecuteApiPolicy& call) {
  CallApiPolicy out;
  out.effective.read_only = daemon.read_only || call.read_only.value_or(false);
  out.read_only_from_call = !daemon.read_only && out.effective.read_only;
  out.effective.projects = narrowed(daemon.projects, call.projects, "projects");
  out.projects_from_call = call.projects.has_value();
  out.effective.buckets = narrowed(daemon.buckets, call.buckets, "buckets");
  out.buckets_from_call = call.buckets.has_value();
  return out;
}

std::optional<ApiRefusal> decide(const CallApiPolicy& policy, const ApiCall& call) {
  const ApiPolicy& p = policy.effective;
  if (!call.ambiguous_because.empty()) {
    // Named after the first rule that needs to know what the request is. Its service is in
    // doubt too (www.googleapis.com names it in the path that is ambiguous), so a bucket
    // allowlist refuses it whatever service it seems to be.
    const bool bucket_rule = !p.buckets.empty();
    const char* rule = p.read_only     ? "read_only"
                       : bucket_rule   ? "buckets"
                       : !p.projects.empty() ? "projects"
                                             : nullptr;
    if (rule != nullptr) {
      const bool from_call = p.read_only ? policy.read_only_from_call
                             : bucket_rule ? policy.buckets_from_call
                                           : policy.projects_from_call;
      return refusal(rule, "cannot classify " + target_of(call) + ": " + call.ambiguous_because +
                               ", so it could be read two ways; " + who_sets(from_call, rule) +
                               " needs to know what a request is, so it is refused; send it "
                               "once, plainly (docs/api-policy.md)");
    }
  }
  if (p.read_only && !call.read) {
    return refusal("read_only",
                   "read-only refuses " + target_of(call) + " (not a read: docs/api-policy.md lists "
                   "what counts as one); " +
                       (policy.read_only_from_call
                            ? "run the call without api_policy.read_only to let it write"
                            : "the daemon's [api_policy] read_only = true, which only the "
                              "daemon's operator can change"));
  }
  const bool bucket_rule = !p.buckets.empty() && call.service == "storage";
  if (bucket_rule) {
    if (call.buckets.empty() && call.needs_bucket) {
      return refusal("buckets", "cannot tell which bucket " + target_of(call) +
                                    " uses, and " + who_sets(policy.buckets_from_call, "buckets") +
                                    " (" + joined(p.buckets) +
                                    ") admits only requests that name a listed bucket; send "
                                    "each request on its own (not in a batch) over the JSON or "
                                    "XML API");
    }
    for (const auto& bucket : call.buckets) {
      if (!listed(p.buckets, bucket)) {
        return refusal("buckets", "bucket " + bucket + " is not in " +
                                      who_sets(policy.buckets_from_call, "buckets") + " (" +
                                      joined(p.buckets) + "); refused " + target_of(call) +
                                      "; use a listed bucket or " +
                                      (policy.buckets_from_call
                                           ? "add it to api_policy.buckets"
                                           : "ask the daemon's operator to add it"));
      }
    }
  }
  if (!p.projects.empty()) {
    std::vector<std::string> named;
    if (!call.project.empty()) named.push_back(call.project);
    if (!call.billing_project.empty()) named.push_back(call.billing_project);
    for (const auto& project : named) {
      if (!listed(p.projects, project)) {
        return refusal("projects", "project " + project + " is not in " +
                                       who_sets(policy.projects_from_call, "projects") + " (" +
                                       joined(p.projects) + "); refused " + target_of(call) +
                                       "; use a listed project or " +
                                       (policy.projects_from_call
                                            ? "add it to api_policy.projects"
                                            : "ask the daemon's operator to add it"));
      }
    }
    const bool buckets_stand_for_project = bucket_rule && !call.buckets.empty();
    if (named.empty() && !buckets_stand_for_project) {
      return refusal("projects",
                     "cannot tell the project of " + target_of(call) + ", and " +
                         who_sets(policy.projects_from_call, "projects") + " (" +
                         joined(p.projects) + ") admits only requests that name a listed "
                         "project" +
                         (call.service == "storage"
                              ? "; a storage request names a bucket, not a project: list its "
                                "buckets in api_policy.buckets or [api_policy] buckets"
                              : ""));
    }
  }
  return std::nullopt;
}

std::function<std::optional<std::string>(const sandbox::ApiRequestFacts&)> refusal_check(
    CallApiPolicy policy) {
  return [policy = std::move(policy)](const sandbox::ApiRequestFacts& request) -> std::optional<std::string> {
    auto refused = decide(policy, classify_api_call(request));
    if (!refused) return std::nullopt;
    return std::move(refused->message);
  };
}

}  // namespace kg::api_policy
