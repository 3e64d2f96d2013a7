// The JSON Schema of the daemon's ExecuteResult (docs/daemon-api.md, docs/contracts.md §3): the
// outputSchema of execute_go_code, which clients check each structuredContent against. Only
// keywords that JSON Schema draft-07 and 2020-12 share, so validators of either dialect agree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "offered_runtimes.hpp"

namespace kg::mcp {

// The result's `runtime` is an enum of the plugins' runtimes when the daemon said what it offers
// (auto always resolves to one of them), else any string.
std::string execute_result_schema(const std::optional<OfferedRuntimes>& offered);

// ["compiled-go","yaegi"]: a JSON array of runtime names.
std::string runtime_names_json(const std::vector<std::string>& names);

}  // namespace kg::mcp
