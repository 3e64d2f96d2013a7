// The host folders (CallHandle::host_folder) the Go side fills in every sandbox of a provider
// that gives them: the binary cache's hits (binary_cache_host_service.hpp) and the modules go mod
// tidy fetched (module_tidy_host_service.hpp), each only the sandbox's owner's. Instance hands
// this list to the local provider, which binds each one read-only and knows nothing of Go.
#pragma once

#include <string>
#include <vector>

#include "sandbox_paths.hpp"

namespace kg::sandbox {

inline std::vector<std::string> go_host_folders() {
  return {kSandboxBinaryCachePath, kSandboxExtraModcachePath};
}

}  // namespace kg::sandbox
