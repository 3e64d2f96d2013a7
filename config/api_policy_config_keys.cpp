#include "api_policy_config_keys.hpp"

#include "daemon_api/api_policy_names.hpp"

namespace kg::config {
namespace {

constexpr std::string_view kBooleans[] = {"false", "true"};

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

constexpr ConfigKeySpec kApiPolicyKeySpecs[] = {
    {.section = "api_policy", .name = "read_only", .kind = ValueKind::choice,
     .choices = kBooleans, .default_text = "false",
     .help = "true: the egress proxy refuses every Google API request that is not a read (the "
             "table in docs/api-policy.md), with HTTP 403 or gRPC PERMISSION_DENIED. A call cannot "
             "turn it off. Enforced where the proxy reads requests (sealed credentials); a call "
             "whose requests it cannot read fails instead of running unchecked.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.api_policy.read_only = v.text == "true"; },
     .current = [](const DaemonConfig& c) {
       return std::string(c.api_policy.read_only ? "true" : "false");
     }},
    {.section = "api_policy", .name = "projects", .kind = ValueKind::word_list,
     .default_text = "none: any project",
     .help = "Project IDs (or numbers) Google API requests may name; a request naming another, "
             "or naming none, is refused (a storage request on a bucket listed in `buckets` "
             "counts as naming an allowed project). Calls may narrow the list.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.api_policy.projects = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.api_policy.projects); }},
    {.section = "api_policy", .name = "buckets", .kind = ValueKind::word_list,
     .default_text = "none: any bucket",
     .help = "Cloud Storage buckets storage requests may name; a request naming another, or one "
             "whose bucket cannot be told (a batch), is refused. Calls may narrow the list.",
     .assign = [](DaemonConfig& c, const ConfigValue& v) { c.api_policy.buckets = v.list; },
     .current = [](const DaemonConfig& c) { return join_words(c.api_policy.buckets); }},
};

}  // namespace

std::span<const ConfigKeySpec> api_policy_config_key_specs() { return kApiPolicyKeySpecs; }

std::vector<ConfigIssue> api_policy_issues(const DaemonConfig& config, const std::string& file) {
  std::vector<ConfigIssue> issues;
  for (const auto& project : config.api_policy.projects) {
    if (auto problem = wire::daemon_api::project_name_problem(project)) {
      issues.push_back({ConfigIssue::Severity::error, file, "api_policy.projects", *problem});
    }
  }
  for (const auto& bucket : config.api_policy.buckets) {
    if (auto problem = wire::daemon_api::bucket_name_problem(bucket)) {
      issues.push_back({ConfigIssue::Severity::error, file, "api_policy.buckets", *problem});
    }
  }
  return issues;
}

}  // namespace kg::config
