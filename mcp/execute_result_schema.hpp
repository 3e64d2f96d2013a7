// The JSON Schema of the daemon's ExecuteResult (docs/daemon-api.md, docs/contracts.md §3): the
// outputSchema of execute_go_code, which clients check each structuredContent against. Only
// keywords that JSON Schema draft-07 and 2020-12 share, so validators of either dialect agree.
#pragma once

#include <string>

namespace kg::mcp {

std::string execute_result_schema();

// The JSON array of the runtimes a call may ask for (config::kAvailableRuntimes): the `runtime`
// enum of execute_go_code's input schema. The output schema's enum is the runtimes that run code
// (config::kRuntimePlugins): auto always resolves to one of them.
std::string available_runtimes_json();

}  // namespace kg::mcp
