// The [api_policy] keys: the daemon's API policy (docs/api-policy.md), which calls
// may narrow but never widen. Kept apart from config_keys.cpp's table, which
// config_key_specs() joins to this one; api_policy_issues checks the names they list.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "config_keys.hpp"

namespace kg::config {

std::span<const ConfigKeySpec> api_policy_config_key_specs();

// An error for each name in [api_policy] projects or buckets that is not a project ID or number,
// or not a bucket name (a typo would otherwise match nothing and refuse every request).
std::vector<ConfigIssue> api_policy_issues(const DaemonConfig& config, const std::string& file);

}  // namespace kg::config
