// Which runtime plugin(s) a call runs with, and, for `auto`, what the daemon does after the
// first runtime answered. The names come from the loaded plugins (each descriptor declares its
// runtime names) and auto from `[runtime] auto_order` (docs/configuration.md, "Runtimes"):
// auto is not a plugin but an ordered choice of two. The session layer runs the first with
// ExecuteRequest::auto_select, and when it declines (its static check found an import or a
// construct it gets wrong) or fails in a way that is its own, not the program's, runs the
// second instead. Pure functions; any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::session {

// The name a call asks for to let the daemon choose.
inline constexpr std::string_view kAutoRuntime = "auto";

// What calls may ask for: the runtime names the loaded plugins offer, and auto.
struct RuntimeOffer {
  std::vector<std::string> plugin_runtimes;  // every name a registered runtime plugin offers
  std::vector<std::string> auto_order;       // [runtime] auto_order: two names, or none (no auto)

  // Two different names, as runtime_names_check.hpp requires of the config.
  bool offers_auto() const { return auto_order.size() == 2 && auto_order[0] != auto_order[1]; }
  // plugin_runtimes, then auto when it is offered.
  std::vector<std::string> callable() const;
  bool can_call(std::string_view name) const;
  // What every boundary says about a runtime not on the list.
  std::string unavailable_message(std::string_view name) const;
};

// One row of GET /v1/plugins' "runtimes" (docs/daemon-api.md).
struct RuntimeState {
  std::string name;
  bool available = false;
  std::string reason;  // why not, when not available
  bool is_default = false;
  std::vector<std::string> chooses;  // auto: the runtimes it chooses between, in order
  std::string description;           // what it does: its plugin's line, or auto's choice
};

// Every name `offer` can call, each with what it is (a plugin runtime's description from
// `plugin_description`, auto's choice) and whether it is `default_runtime`; not available until
// the caller says otherwise.
std::vector<RuntimeState> describe_runtimes(
    const RuntimeOffer& offer, std::string_view default_runtime,
    const std::function<std::string(const std::string& name)>& plugin_description);

struct RuntimePlan {
  std::string requested;  // the name asked for (after the defaults): a runtime name or auto
  std::string first;      // the plugin that runs first
  std::string second;     // auto: the runtime the first hands a call to; empty otherwise
  bool auto_select = false;
};

// requested (the call's), else session_runtime, else default_runtime. Throws UnknownRuntimeError
// for a name `offer` cannot call.
RuntimePlan plan_runtime(std::string_view requested, std::string_view session_runtime,
                         std::string_view default_runtime, const RuntimeOffer& offer);

// Actions test and vet run the go command (docs/runtimes.md, "go test and go vet"): auto gives
// them straight to the second runtime of its order (compiled-go by default; auto_select off).
// A runtime named by the call, its session or the default gets them as asked, and a runtime
// plugin that has no go command (yaegi) refuses them itself with plugin::InvalidInputError.
// Action run: the plan as it is.
RuntimePlan plan_for_action(RuntimePlan plan, plugin::Action action);

// The result's runtime_reason when auto gave an action that is not run to `plan.first`.
std::string action_runtime_reason(const RuntimePlan& plan, plugin::Action action);

struct AutoVerdict {
  bool run_second = false;             // hand the call to the plan's second runtime
  std::string reason;                  // the result's runtime_reason
  std::optional<std::string> warning;  // for the second's result, when the first failed
};

// What auto does with the first runtime's answer to an auto_select call. A program whose code
// started (ExecuteResult::program_started) is never run again for a decline, and not for a
// limitation either when it ran with Google credentials: it may already have acted as the user,
// and a credentialed program never runs twice for one call (docs/security.md).
AutoVerdict after_first_runtime(const RuntimePlan& plan, const plugin::ExecuteResult& first,
                                bool ran_with_credentials);

// auto: whether `files` still hold, verbatim, what the first runtime's decline on an earlier call
// of the same session pointed at (ExecuteResult::decline_evidence). Then the call goes to the
// second runtime without asking the first again: its check would most likely decline again, and
// asking costs a sandbox round trip; declining is never wrong, only at worst slower.
bool still_holds(const plugin::DeclineEvidence& evidence,
                 const std::vector<plugin::SourceFile>& files);

// The runtime_reason of a call handed over that way.
std::string remembered_decline_reason(const RuntimePlan& plan, const std::string& earlier_reason,
                                      const std::string& file);

}  // namespace kg::session
