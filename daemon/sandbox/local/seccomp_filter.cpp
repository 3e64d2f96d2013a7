#include "seccomp_filter.hpp"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace kg::sandbox {
namespace {

// Refused with EPERM whatever their arguments.
constexpr const char* kRefusedCalls[] = {
    // Inspecting or steering other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    // Mounts and the file system tree.
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "open_by_handle_at", "name_to_handle_at",
    // New or foreign namespaces.
    "unshare", "setns",
    // Kernel attack surface untrusted code has no business with.
    "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init",
    // The machine itself.
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "syslog", "quotactl", "lookup_dcookie", "iopl", "ioperm",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "vhangup", "uselib",
    "personality",
};

constexpr unsigned long long kNamespaceFlags[] = {
    CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
    CLONE_NEWCGROUP,
};

struct ContextDeleter {
  void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using Context = std::unique_ptr<void, ContextDeleter>;

void check(int rc, const std::string& what) {
  if (rc < 0) {
    throw std::runtime_error("Cannot build the sandbox's seccomp filter (" + what +
                             "): " + std::strerror(-rc));
  }
}

}  // namespace

std::vector<std::uint8_t> sandbox_seccomp_program() {
  Context ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) throw std::runtime_error("Cannot build the sandbox's seccomp filter: seccomp_init failed");
  for (const char* name : kRefusedCalls) {
    const int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) continue;  // not a system call on this architecture
    check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), number, 0), name);
  }
  // clone: refused when asked for any new namespace (each flag its own rule: rules OR).
  for (const auto flag : kNamespaceFlags) {
    check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)),
          "clone namespace flags");
  }
  // clone3 passes its flags in memory, out of the filter's sight: callers fall back to clone.
  check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), "clone3");

  const int fd = memfd_create("kg-seccomp-export", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("Cannot create a memfd: ") + std::strerror(errno));
  std::vector<std::uint8_t> program;
  try {
    check(seccomp_export_bpf(ctx.get(), fd), "export");
    const off_t size = ::lseek(fd, 0, SEEK_END);
    program.resize(static_cast<std::size_t>(size));
    if (::pread(fd, program.data(), program.size(), 0) != size) {
      throw std::runtime_error(std::string("Cannot read the seccomp filter back: ") + std::strerror(errno));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return program;
}

int seccomp_program_fd(const std::vector<std::uint8_t>& program) {
  const int fd = memfd_create("kg-seccomp", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("Cannot create a memfd: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < program.size()) {
    const ssize_t n = ::write(fd, program.data() + written, program.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error(std::string("Cannot write the seccomp filter: ") + std::strerror(errno));
    }
    written += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace kg::sandbox
