// The JSON Schema of the daemon's ExecuteResult (docs/daemon-api.md, CONTRACTS.md §3): the
// outputSchema of execute_go_code, which clients check each structuredContent against. Only
// keywords that JSON Schema draft-07 and 2020-12 share, so validators of either dialect agree.
#pragma once

#include <string>

namespace kg::mcp {

std::string execute_result_schema();

// The JSON array of the runtimes this build has (config::kAvailableRuntimes): the `runtime`
// enum of both the input and the output schema of execute_go_code.
std::string available_runtimes_json();

}  // namespace kg::mcp
