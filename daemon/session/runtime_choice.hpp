// Which runtime plugin(s) a call runs with, and, for `auto`, what the daemon does after the
// yaegi plugin answered. auto is not a plugin: the session layer runs the yaegi plugin with
// ExecuteRequest::auto_select, and when it declines (its static check found an import or a
// construct Yaegi gets wrong) or fails in a way that is the interpreter's, not the program's,
// runs compiled-go instead. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime_plugin.hpp"

namespace kg::session {

struct RuntimePlan {
  std::string requested;  // the name asked for (after the defaults): compiled-go | yaegi | auto
  std::string first;      // the plugin that runs first
  bool auto_select = false;
};

// requested (the call's), else session_runtime, else default_runtime. Throws UnknownRuntimeError
// for a name not in config::kAvailableRuntimes.
RuntimePlan plan_runtime(std::string_view requested, std::string_view session_runtime,
                         std::string_view default_runtime);

// Actions test and vet run the go command, which only compiled-go has (docs/runtimes.md, "go
// test and go vet"): auto picks compiled-go for them (auto_select off, runtime_reason set);
// yaegi, asked for by the call, its session or the default, is refused with
// plugin::InvalidInputError saying to use compiled-go. Action run: the plan as it is.
RuntimePlan plan_for_action(RuntimePlan plan, plugin::Action action);

// The reason auto gives for picking compiled-go for an action that is not run.
std::string go_tool_runtime_reason(plugin::Action action);

struct AutoVerdict {
  bool run_compiled = false;    // hand the call to compiled-go
  std::string reason;           // the result's runtime_reason
  std::optional<std::string> warning;  // for the compiled result, when Yaegi failed
};

// What auto does with the yaegi plugin's answer to an auto_select call. A program whose code
// started (ExecuteResult::program_started) is never run again for a decline, and not for a
// limitation either when it ran with Google credentials: it may already have acted as the user,
// and a credentialed program never runs twice for one call (docs/security.md).
AutoVerdict after_yaegi(const plugin::ExecuteResult& yaegi, bool ran_with_credentials);

}  // namespace kg::session
