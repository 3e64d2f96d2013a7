// Which host user a root daemon's sandboxes run as. bubblewrap is started as that user, so the
// user inside the sandbox (uid 1000) maps to it and never to root — but then every folder
// bubblewrap binds must be reachable by it. This checks that before the first sandbox starts.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace kg::sandbox {

struct PathAccess {
  std::string path;
  int mode;  // for access(2): R_OK, X_OK, R_OK | X_OK
};

// The first path `uid`/`gid` (no supplementary groups) cannot access as asked; nullopt when it
// can access them all. Forks a short-lived child that switches user; only meaningful when the
// daemon runs as root. Throws std::runtime_error if fork fails.
std::optional<std::string> first_path_denied_to(uid_t uid, gid_t gid,
                                                const std::vector<PathAccess>& checks);

}  // namespace kg::sandbox
