// Classifies how the user's program ended (CONTRACTS.md §3 statuses) from the sandbox's report.
#pragma once

#include "runtime_plugin.hpp"

namespace kg::compiled_go {

plugin::Status classify_run(const plugin::CommandOutcome& outcome);

}  // namespace kg::compiled_go
