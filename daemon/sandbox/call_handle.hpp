// The daemon's side of the handle a runtime plugin drives for one call: plugin::SandboxHandle
// plus what the host's own services need to serve that call's sandbox, in terms any provider can
// offer or decline. A plugin gets it as a plugin::SandboxHandle and hands it back to a host
// service (the Go side's binary cache and tidy, daemon/gocache, plugin::HostServices), which
// recognises it with dynamic_cast: a handle the daemon did not make gets nothing of the host.
//
// Nothing here is Go's: a host folder is any folder the host fills and the sandbox only reads,
// and take_file any file a command left behind. Used by the call's thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "owned_fd.hpp"
#include "sandbox_handle.hpp"

namespace kg::sandbox {

struct SandboxWait;  // sandbox_provider.hpp

// A file a command left in its sandbox, opened by the host (CallHandle::take_file).
struct TakenFile {
  OwnedFd file;
  // True when the file was made the daemon's and read-only, so nothing in the sandbox can change
  // it any more (the sandbox's user is another host uid). False: the sandbox's user is the
  // daemon's, and the file stays as it is only while no command runs in the sandbox.
  bool frozen = false;
};

// Bounds of a folder fetched as a tar (CallHandle::folder_tar): the sandbox leaves out, and
// names, what goes past them.
struct FolderTarBounds {
  std::uint64_t max_files = 64;
  std::uint64_t max_file_bytes = 8ull << 20;
  std::uint64_t max_total_bytes = 32ull << 20;
};

class CallHandle : public plugin::SandboxHandle {
 public:
  // Whose call this is (CallServices::owner; empty: the daemon's own user).
  virtual const std::string& owner() const noexcept = 0;
  // The call's tally of time spent on the sandbox (null: not tallied); a host service adds the
  // work it does for the sandbox here.
  virtual SandboxWait* wait() const noexcept = 0;
  // The host path of this sandbox's own read-only folder that its commands see at sandbox_path
  // (one of the provider's host folders, LocalSandboxLayout::host_folders), for the host to fill
  // with what the call's owner may see. nullopt where the provider's sandboxes cannot receive
  // host folders (Kubernetes pods). Throws plugin::SandboxError for a handle made for no one's
  // call: a sandbox serves one owner for its life (docs/security.md).
  virtual std::optional<std::string> host_folder(std::string_view sandbox_path) = 0;
  // True when this handle's last command was a clean_state command that succeeded: what it
  // built depends only on what the call uploaded and the read-only base.
  virtual bool last_command_built_clean() const noexcept = 0;
  // Opens, from the host, the regular file the last command left at sandbox_path under the
  // sandbox's home (kSandboxHome), refusing symlinks on the way: what it opens is never a host
  // file. nullopt where the provider cannot reach a sandbox's files from the host. Throws
  // std::runtime_error naming the path when it is elsewhere, not a regular file, or unreadable.
  virtual std::optional<TakenFile> take_file(std::string_view sandbox_path) = 0;
  // The folder at workdir_path (relative to /app) as the sandbox packs it (GET /download-tar,
  // docs/sandbox-api.md): a tar to read as hostile. nullopt when there is no such folder. Every
  // provider offers it (it is the runtime API). Throws plugin::SandboxError.
  virtual std::optional<std::string> folder_tar(std::string_view workdir_path,
                                                const FolderTarBounds& bounds) = 0;
};

}  // namespace kg::sandbox
