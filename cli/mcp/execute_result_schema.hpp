// The JSON Schema of the daemon's ExecuteResult (docs/daemon-api.md, CONTRACTS.md §3): the
// outputSchema of execute_go_code, which clients check each structuredContent against. Only
// keywords that JSON Schema draft-07 and 2020-12 share, so validators of either dialect agree.
#pragma once

#include <string_view>

namespace kg::mcp {

extern const std::string_view kExecuteResultSchema;

}  // namespace kg::mcp
