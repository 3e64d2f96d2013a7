// The prose a model reads: the server's instructions and each tool's description, with the
// curated packages filled in from the generated list (curated_package_list.hpp), so what the
// model is told and what the sandbox prewarms come from the one curated.go.
// Pure functions; any thread.
#pragma once

#include <string>

namespace kg::mcp {

std::string server_instructions();
std::string execute_go_code_description();
std::string gcp_auth_status_description();
std::string lookup_package_docs_description();

// "  - cloud.google.com/go/bigquery\n  - ..." (one line per curated package).
std::string curated_package_bullets();

}  // namespace kg::mcp
