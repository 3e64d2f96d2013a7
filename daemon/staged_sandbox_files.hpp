// Copies what every local sandbox binds from the install (the sandbox server, the cache program,
// the Yaegi runner when there is one, and the curated lockfile) into the daemon's state dir, and
// points the layout at the copies.
//
// Why: a root daemon's sandboxes run as an unprivileged host uid, which must read everything
// bound into them, and a checkout or build tree under /root is not readable by it; the copies
// live beside the caches, in a folder the daemon makes readable. It also keeps the build tree's
// path (often a user's home) out of what a sandbox can see in /proc/self/mountinfo.
//
// Called once by Instance at start, before any sandbox exists. Files whose copy is already
// identical are left alone, so a restart costs a compare.
#pragma once

#include <string>

#include "install_layout.hpp"

namespace kg {

// Throws std::runtime_error (nested) naming the file that cannot be copied.
void stage_sandbox_files(InstallLayout& layout, const std::string& staging_dir);

}  // namespace kg
