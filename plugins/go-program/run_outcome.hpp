// How the user's program ended, as every Go runtime reports it: the status (docs/contracts.md §3)
// from the sandbox's report, the warnings a limit gives, and the result.json read after the run.
// Pure; called from call threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::go_program {

plugin::Status classify_run(const plugin::CommandOutcome& outcome);

// One warning per limit the run hit under `spec` (time, memory, CPU, output), each saying what
// to do; a timeout names max_run_timeout_ms, the longest limit the call could ask for.
void add_run_warnings(const plugin::CommandOutcome& outcome, const plugin::CommandSpec& spec,
                      std::uint32_t max_run_timeout_ms, std::vector<std::string>& warnings);

// Sets result.result_json from the result.json the run left (spec.read_file_after), checked,
// with warnings for what was wrong with it; a recovered panic turns runtime_error into panic.
void take_result_file(const plugin::CommandOutcome& outcome, plugin::ExecuteResult& result);

}  // namespace kg::go_program
