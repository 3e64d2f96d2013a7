#include "local_sandbox_handle.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error_chain.hpp"
#include "owned_fd.hpp"
#include "sandbox_paths.hpp"

namespace kg::sandbox {
namespace {

// Opens `path` (absolute inside the sandbox) as the sandbox would resolve it, but refusing every
// symlink on the way: a planted link can neither leave the sandbox's root nor pick another file.
int open_inside(const std::string& root_path, std::string_view path) {
  const OwnedFd root(::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) {
    throw std::runtime_error("Cannot open the sandbox's root " + root_path + ": " + std::strerror(errno));
  }
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW;
  // (Mounts are crossed: the home is a tmpfs of its own.)
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const std::string relative(path.substr(path.find_first_not_of('/')));
  const int fd = static_cast<int>(::syscall(SYS_openat2, root.get(), relative.c_str(), &how, sizeof how));
  if (fd < 0) {
    throw std::runtime_error("Cannot open " + std::string(path) + " in the sandbox: " + std::strerror(errno));
  }
  return fd;
}

// Makes the file the daemon's and read and execute only, so the sandbox's user can no
// longer write it (nor chmod it back). True when that holds: the command wrote it as another host
// uid than the daemon's (else the sandbox's user is the daemon's uid and owns the file, whatever
// the mode says).
bool freeze_against_sandbox(int fd, const struct stat& built) {
  if (built.st_uid == ::geteuid()) return false;
  return ::fchown(fd, ::geteuid(), ::getegid()) == 0 && ::fchmod(fd, 0555) == 0;
}

}  // namespace

plugin::CommandOutcome LocalSandboxHandle::run_command(const plugin::CommandSpec& spec) {
  SandboxCgroup* cgroup = sandbox_.cgroup();
  if (cgroup != nullptr) {
    const auto& wanted = spec.resources;
    const std::uint64_t memory =
        wanted.memory_bytes == 0 ? policy_.memory_bytes : std::min(wanted.memory_bytes, policy_.memory_bytes);
    const std::uint32_t pids = wanted.pids == 0 ? policy_.pids : std::min(wanted.pids, policy_.pids);
    try {
      cgroup->set_limits(memory, pids);
    } catch (const std::exception& e) {
      // Usually memory already in use above a lowered limit: run with the sandbox's own.
      logger_.log(plugin::LogLevel::warn, "Sandbox " + sandbox_.id() + ": keeping its limits: " +
                                              describe_error_chain(e));
      cgroup->set_limits(policy_.memory_bytes, policy_.pids);
    }
  }
  plugin::CommandOutcome outcome;
  built_clean_ = false;
  try {
    const TimedSandboxWait timed(wait_);
    outcome = sandbox_.client().run_command(spec, canceller_, output_);
  } catch (...) {
    // This command's OOM kills, if any, must not be reported on the next one.
    if (cgroup != nullptr) cgroup->new_oom_kills();
    throw;
  }
  // Every command of the sandbox comes through here, so what is new is this command's.
  if (cgroup != nullptr) outcome.oom_killed = cgroup->new_oom_kills() > 0;
  built_clean_ = spec.clean_state && outcome.exit_code == 0 && !outcome.timed_out;
  return outcome;
}

std::optional<std::string> LocalSandboxHandle::host_folder(std::string_view sandbox_path) {
  // call_handle() made the sandbox this owner's: what the host puts here is that owner's alone.
  if (!owner_) {
    throw plugin::SandboxError("Sandbox " + sandbox_.id() + ": a handle for no one's call gets no "
                               "host folders");
  }
  return sandbox_.host_folder(sandbox_path);
}

std::optional<TakenFile> LocalSandboxHandle::take_file(std::string_view sandbox_path) {
  const std::string home = kSandboxHome;
  if (!sandbox_path.starts_with(home + "/")) {
    throw std::runtime_error("only files under " + home + " can be taken out, not " +
                             std::string(sandbox_path));
  }
  // No sandbox process runs between the command and this open (the sandbox server kills every
  // process after each command), and the open refuses symlinks: what is opened is the file the
  // command wrote, never a host file.
  TakenFile taken{OwnedFd(open_inside(sandbox_.root_path(), sandbox_path)), false};
  struct stat info {};
  if (::fstat(taken.file.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw std::runtime_error(std::string(sandbox_path) + " is not a regular file");
  }
  taken.frozen = freeze_against_sandbox(taken.file.get(), info);
  return taken;
}

}  // namespace kg::sandbox
