// The warnings of a build or go mod tidy that failed: what happened, the limit and the config
// key that set it, and what the caller can do (docs/mcp.md, "What a failed call tells the
// agent"). Kept apart from the plugin's flow so each message reads as one piece.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"
#include "sandbox_handle.hpp"

namespace kg::compiled_go {

// The warnings of a failed build command (out of memory, over its time or CPU limit, an error
// in the generated kg_wrapper.go), in that order; none for an ordinary compile error.
std::vector<std::string> build_failure_warnings(const plugin::CommandOutcome& built,
                                                const plugin::CommandSpec& spec,
                                                const std::vector<plugin::Diagnostic>& diagnostics);

// The warning of a go mod tidy that failed, naming the imports it could not resolve (read from
// its output, at most three) and what to do.
std::string tidy_failure_warning(std::string_view tidy_output);

}  // namespace kg::compiled_go
