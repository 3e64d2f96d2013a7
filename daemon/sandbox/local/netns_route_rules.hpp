// Installs policy-routing rules (what `ip rule add to PREFIX prohibit` does) inside another
// process's network namespace, over rtnetlink. Called by EgressNetwork before the sandbox's
// user-mode network comes up, from any daemon thread.
//
// Entering a namespace needs a single-threaded process, so the work happens in a short-lived
// forked child: it joins the user namespace that owns the network namespace (which gives it
// CAP_NET_ADMIN there when the daemon owns that user namespace or is root), then the network
// namespace, sends every rule in one batch and reports the first refusal back.
#pragma once

#include <vector>

#include "egress_policy.hpp"

namespace kg::sandbox {

// Priorities of the installed rules: after the "local" table (0), before "main" (32766).
inline constexpr int kAllowRulePriority = 1000;
inline constexpr int kRefuseRulePriority = 1001;

enum class RuleChange { add, remove };

// Adds (or removes) rules in the network namespace netns_fd (e.g. /proc/PID/ns/net).
// owner_userns_fd: the user namespace that owns it (NS_GET_USERNS), or -1 to stay in the
// caller's own. Throws std::runtime_error naming the step (joining a namespace, or the rule and
// its reason) and errno.
void change_route_rules(int netns_fd, int owner_userns_fd, const std::vector<RouteRule>& rules,
                        RuleChange change);

}  // namespace kg::sandbox
