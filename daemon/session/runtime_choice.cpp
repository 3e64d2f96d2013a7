#include "runtime_choice.hpp"

#include "available_backends.hpp"
#include "session_errors.hpp"

namespace kg::session {

RuntimePlan plan_runtime(std::string_view requested, std::string_view session_runtime,
                         std::string_view default_runtime) {
  RuntimePlan plan;
  plan.requested = std::string(!requested.empty()         ? requested
                               : !session_runtime.empty() ? session_runtime
                                                          : default_runtime);
  if (!config::is_available_runtime(plan.requested)) {
    throw UnknownRuntimeError(config::unavailable_runtime_message(plan.requested));
  }
  plan.auto_select = plan.requested == config::kAutoRuntime;
  plan.first = plan.auto_select ? "yaegi" : plan.requested;
  return plan;
}

RuntimePlan plan_for_action(RuntimePlan plan, plugin::Action action) {
  if (action == plugin::Action::run) return plan;
  const std::string verb = "go " + std::string(plugin::to_string(action));
  if (plan.auto_select) {
    plan.first = "compiled-go";
    plan.auto_select = false;
    return plan;
  }
  if (plan.first == "yaegi") {
    throw plugin::InvalidInputError(
        "action " + std::string(plugin::to_string(action)) + " runs " + verb +
        ", which the yaegi runtime (an interpreter, with no go command) cannot: call again with "
        "runtime \"compiled-go\" (or \"auto\", which picks compiled-go for test and vet)");
  }
  return plan;
}

std::string go_tool_runtime_reason(plugin::Action action) {
  return "action " + std::string(plugin::to_string(action)) + " runs go " +
         std::string(plugin::to_string(action)) + ", which only compiled-go has";
}

AutoVerdict after_yaegi(const plugin::ExecuteResult& yaegi, bool ran_with_credentials) {
  AutoVerdict verdict;
  switch (yaegi.handoff) {
    case plugin::Handoff::none:
      verdict.reason = yaegi.runtime_reason.empty() ? "Yaegi's static check found it safe"
                                                    : yaegi.runtime_reason;
      break;
    case plugin::Handoff::declined:
      verdict.reason = yaegi.runtime_reason.empty() ? "Yaegi declined it" : yaegi.runtime_reason;
      if (yaegi.program_started) {
        // A decline is a verdict from before the program runs; one after it started is not the
        // runtime's (docs/security.md), and the program is not run a second time for it.
        verdict.reason = "Yaegi ran it";
        verdict.warning = "the Yaegi plugin declined this program after it had started; it was "
                          "not run again with compiled-go";
        break;
      }
      verdict.run_compiled = true;
      break;
    case plugin::Handoff::limitation: {
      const std::string failure =
          yaegi.runtime_reason.empty() ? std::string("an interpreter failure") : yaegi.runtime_reason;
      if (ran_with_credentials && yaegi.program_started) {
        verdict.reason = "Yaegi could not run it (" + failure + ")";
        verdict.warning = "Yaegi failed on this program where compiled Go does not (" + failure +
                          "); it was not run again with compiled-go because it ran with Google "
                          "credentials and may already have acted as you: call again with "
                          "runtime compiled-go";
        break;
      }
      verdict.run_compiled = true;
      verdict.reason = "Yaegi could not run it (" + failure + "), so compiled-go ran it";
      verdict.warning = "Yaegi failed on this program where compiled Go does not (" + failure +
                        "); it was run again with compiled-go";
      break;
    }
  }
  return verdict;
}

}  // namespace kg::session
