// Turns whatever stopped a tool call (bad arguments, a daemon that refused the request or could
// not be reached) into the error result the model reads. The one place the MCP boundary maps
// exceptions to results; called by every tool on the worker thread.
#pragma once

#include <exception>
#include <string_view>

#include "tool.hpp"

namespace kg::mcp {

// "<tool>: <what went wrong and what to do>", with the whole error chain.
ToolResult tool_failure(std::string_view tool, std::exception_ptr error);

}  // namespace kg::mcp
