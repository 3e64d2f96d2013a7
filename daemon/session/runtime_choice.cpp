#include "runtime_choice.hpp"

#include <algorithm>

#include "session_errors.hpp"

namespace kg::session {

std::vector<std::string> RuntimeOffer::callable() const {
  std::vector<std::string> names = plugin_runtimes;
  if (offers_auto()) names.emplace_back(kAutoRuntime);
  return names;
}

bool RuntimeOffer::can_call(std::string_view name) const {
  if (name == kAutoRuntime) return offers_auto();
  return std::find(plugin_runtimes.begin(), plugin_runtimes.end(), name) != plugin_runtimes.end();
}

std::string RuntimeOffer::unavailable_message(std::string_view name) const {
  std::string names;
  for (const std::string& runtime : callable()) names += (names.empty() ? "" : ", ") + runtime;
  return "runtime \"" + std::string(name) + "\" is not available; available runtimes: " +
         (names.empty() ? std::string("none (no runtime plugin is loaded)") : names);
}

std::vector<RuntimeState> describe_runtimes(
    const RuntimeOffer& offer, std::string_view default_runtime,
    const std::function<std::string(const std::string& name)>& plugin_description) {
  std::vector<RuntimeState> states;
  for (const std::string& name : offer.callable()) {
    RuntimeState state;
    state.name = name;
    state.is_default = name == default_runtime;
    if (name == kAutoRuntime) {
      state.chooses = offer.auto_order;
      state.description = "gives the call to " + offer.auto_order[0] + ", which hands it to " +
                          offer.auto_order[1] + " before the program starts when it is not "
                          "safe there; the result's runtime_reason says why";
    } else {
      state.description = plugin_description(name);
    }
    states.push_back(std::move(state));
  }
  return states;
}

RuntimePlan plan_runtime(std::string_view requested, std::string_view session_runtime,
                         std::string_view default_runtime, const RuntimeOffer& offer) {
  RuntimePlan plan;
  plan.requested = std::string(!requested.empty()         ? requested
                               : !session_runtime.empty() ? session_runtime
                                                          : default_runtime);
  if (!offer.can_call(plan.requested)) {
    throw UnknownRuntimeError(offer.unavailable_message(plan.requested));
  }
  plan.auto_select = plan.requested == kAutoRuntime;
  plan.first = plan.auto_select ? offer.auto_order[0] : plan.requested;
  if (plan.auto_select) plan.second = offer.auto_order[1];
  return plan;
}

RuntimePlan plan_for_action(RuntimePlan plan, plugin::Action action) {
  if (action == plugin::Action::run || !plan.auto_select) return plan;
  plan.first = plan.second;
  plan.second.clear();
  plan.auto_select = false;
  return plan;
}

std::string action_runtime_reason(const RuntimePlan& plan, plugin::Action action) {
  const std::string verb(plugin::to_string(action));
  return "action " + verb + " runs go " + verb + ", so auto gives it to " + plan.first +
         ", the runtime auto hands what it does not interpret";
}

AutoVerdict after_first_runtime(const RuntimePlan& plan, const plugin::ExecuteResult& first,
                                bool ran_with_credentials) {
  const std::string& name = plan.first;
  const std::string& second = plan.second;
  AutoVerdict verdict;
  switch (first.handoff) {
    case plugin::Handoff::none:
      verdict.reason = first.runtime_reason.empty() ? name + "'s static check found it safe"
                                                    : first.runtime_reason;
      break;
    case plugin::Handoff::declined:
      verdict.reason = first.runtime_reason.empty() ? name + " declined it" : first.runtime_reason;
      if (first.program_started) {
        // A decline is a verdict from before the program runs; one after it started is not the
        // runtime's (docs/security.md), and the program is not run a second time for it.
        verdict.reason = name + " ran it";
        verdict.warning = "the " + name + " plugin declined this program after it had started; "
                          "it was not run again with " + second;
        break;
      }
      verdict.run_second = true;
      break;
    case plugin::Handoff::limitation: {
      const std::string failure =
          first.runtime_reason.empty() ? std::string("a failure of its own") : first.runtime_reason;
      if (ran_with_credentials && first.program_started) {
        verdict.reason = name + " could not run it (" + failure + ")";
        verdict.warning = name + " failed on this program where " + second + " does not (" +
                          failure + "); it was not run again with " + second +
                          " because it ran with Google credentials and may already have acted "
                          "as you: call again with runtime " + second;
        break;
      }
      verdict.run_second = true;
      verdict.reason = name + " could not run it (" + failure + "), so " + second + " ran it";
      verdict.warning = name + " failed on this program where " + second + " does not (" +
                        failure + "); it was run again with " + second;
      break;
    }
  }
  return verdict;
}

bool still_holds(const plugin::DeclineEvidence& evidence,
                 const std::vector<plugin::SourceFile>& files) {
  if (evidence.text.empty()) return false;
  return std::any_of(files.begin(), files.end(), [&](const plugin::SourceFile& f) {
    return f.path == evidence.file && f.content.find(evidence.text) != std::string::npos;
  });
}

std::string remembered_decline_reason(const RuntimePlan& plan, const std::string& earlier_reason,
                                      const std::string& file) {
  return plan.first + " declined the same code in " + file + " on an earlier call of this "
         "session, so " + plan.second + " runs it without asking again (" + earlier_reason + ")";
}

}  // namespace kg::session
