// The prose a model reads: the server's instructions and each tool's description, with the
// curated packages filled in from the generated list (curated_package_list.hpp), so what the
// model is told and what the sandbox prewarms come from the one curated.go.
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>

#include "offered_runtimes.hpp"

namespace kg::mcp {

std::string server_instructions();
// The runtimes part and the limits come from the daemon's answer (GET /v1/plugins); without it
// the runtimes part says how to find out and the limits are the defaults, said to be such.
std::string execute_go_code_description(const std::optional<OfferedRuntimes>& offered);
// The `timeout_ms` parameter's description, with the daemon's limits as above.
std::string timeout_parameter_description(const std::optional<OfferedRuntimes>& offered);
// The `runtime` parameter's description.
std::string runtime_parameter_description(const std::optional<OfferedRuntimes>& offered);
std::string gcp_auth_status_description();
std::string lookup_package_docs_description();

// "  - cloud.google.com/go/bigquery\n  - ..." (one line per curated package).
std::string curated_package_bullets();

}  // namespace kg::mcp
