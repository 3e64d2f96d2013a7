// Empties the workdir for POST /reset: removes every entry inside it (never the workdir itself)
// without following symlinks, even out of directories the command made read-only.
// Called by the /reset route on a server thread.
#pragma once

#include <cstdint>
#include <filesystem>

namespace kg::sandbox {

// Returns how many files, links and directories were removed. Throws std::runtime_error naming
// the first entry that could not be removed (after removing all it could).
std::uint64_t remove_workdir_contents(const std::filesystem::path& workdir);

}  // namespace kg::sandbox
