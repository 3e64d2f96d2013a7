// Turns one run of the Yaegi runner (its CommandOutcome and its event lines) into the call's
// result, in the same shape compiled-go gives: the runner's lines are stripped from stderr, a
// compile_error event becomes phase build with diagnostics, the compiled event splits the time
// into build_us and run_us, and declined/limitation set the handoff for auto. Pure; call threads.
#pragma once

#include <cstdint>
#include <string_view>

#include "runtime_plugin.hpp"

namespace kg::yaegi {

struct YaegiRun {
  const plugin::CommandOutcome& outcome;
  const plugin::CommandSpec& spec;  // what ran (limits, for the warnings)
  std::string_view token;           // the call's KG_YAEGI_TOKEN
  bool auto_select = false;         // the runner ran with --auto
  std::uint64_t elapsed_us = 0;     // the command's wall time, measured by the plugin
  std::uint32_t max_run_timeout_ms = 600'000;  // named in a timeout's advice
};

// Fills phase, status, exit code, streams, diagnostics, timings (build_us, run_us), warnings,
// the result.json, handoff and runtime_reason; leaves mode and setup_us alone.
void fill_result(const YaegiRun& run, plugin::ExecuteResult& result);

}  // namespace kg::yaegi
