// The curated packages: the blank imports of the lockfile's curated.go, the one list that the
// prewarm compiles, package_docs accepts and the MCP tool descriptions name.
#pragma once

#include <string>
#include <vector>

namespace kg::sandbox {

// Throws std::runtime_error naming the file when it cannot be read or lists no package.
std::vector<std::string> read_curated_packages(const std::string& lockfile_dir);

}  // namespace kg::sandbox
