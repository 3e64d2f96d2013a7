#include "command_exec.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kg::sandbox {
namespace {

#ifndef CLOSE_RANGE_CLOEXEC
constexpr unsigned kCloseRangeCloexec = 1u << 2;
#else
constexpr unsigned kCloseRangeCloexec = CLOSE_RANGE_CLOEXEC;
#endif

PreparedLimit prepare_limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit current{};
  if (::getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY) {
    hard = std::min(hard, current.rlim_max);
    soft = std::min(soft, hard);
  }
  return PreparedLimit{resource, rlimit{soft, hard}};
}

// Everything below runs in the forked child: async-signal-safe calls only, no allocation.
void write_record(int status_fd, const StatusRecord& record) {
  [[maybe_unused]] const auto ignored = ::write(status_fd, &record, sizeof record);
}

bool move_to(int fd, int target) {
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;  // dup2 would keep close-on-exec
  return ::dup2(fd, target) == target;
}

// The OOM killer takes the command, never the server (or launcher) that reports on it.
void volunteer_for_oom_killer() {
  const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  [[maybe_unused]] const auto ignored = ::write(fd, "1000", 4);
  ::close(fd);
}

}  // namespace

[[noreturn]] void fail_in_child(int status_fd, int stage) {
  write_record(status_fd, StatusRecord{StatusRecord::failed, stage, errno});
  ::_exit(127);
}

[[noreturn]] void become_command(const CommandExecPlan& plan) {
  // The raw syscall: a child cloned by the launcher must not trust libc's idea of its pid.
  write_record(plan.status_fd,
               StatusRecord{StatusRecord::started, static_cast<int>(::syscall(SYS_getpid)), 0});
  ::setpgid(0, 0);
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  volunteer_for_oom_killer();
  for (std::size_t i = 0; i < plan.limit_count; ++i) {
    if (::setrlimit(plan.limits[i].resource, &plan.limits[i].value) != 0) {
      fail_in_child(plan.status_fd, kStageRlimit);
    }
  }
  sigset_t no_signals;
  sigemptyset(&no_signals);
  ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    ::sigaction(signal_number, &default_action, nullptr);  // undo SIG_IGN (SIGPIPE) etc.
  }
  if (!move_to(plan.stdin_fd, 0) || !move_to(plan.stdout_fd, 1) || !move_to(plan.stderr_fd, 2)) {
    fail_in_child(plan.status_fd, kStageRedirect);
  }
  // Server sockets are not close-on-exec; no descriptor of the server may reach the command.
  if (::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) != 0) {
    for (int fd = 3; fd <= plan.highest_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (::chdir(plan.workdir) != 0) fail_in_child(plan.status_fd, kStageChdir);
  ::execve(plan.argv[0], plan.argv, plan.envp);
  if (plan.shell_fallback != nullptr) {
    char shell[] = "/bin/sh", dash_c[] = "-c";
    char* const shell_argv[] = {shell, dash_c, const_cast<char*>(plan.shell_fallback), nullptr};
    ::execve(shell_argv[0], shell_argv, plan.envp);
  }
  fail_in_child(plan.status_fd, kStageExec);
}

std::vector<PreparedLimit> prepare_limits(std::uint64_t cpu_seconds, std::uint64_t file_size_bytes,
                                          std::uint64_t open_files) {
  std::vector<PreparedLimit> prepared;
  if (cpu_seconds > 0) {
    // SIGXCPU at the soft limit, SIGKILL a second later for programs that ignore SIGXCPU.
    prepared.push_back(prepare_limit(RLIMIT_CPU, cpu_seconds, cpu_seconds + 1));
  }
  if (file_size_bytes > 0) {
    prepared.push_back(prepare_limit(RLIMIT_FSIZE, file_size_bytes, file_size_bytes));
  }
  if (open_files > 0) {
    prepared.push_back(prepare_limit(RLIMIT_NOFILE, open_files, open_files));
  }
  return prepared;
}

int highest_possible_fd() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65535;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536)) - 1;
}

std::string describe_child_failure(int stage, int error_number,
                                   const std::filesystem::path& workdir) {
  const std::string reason = std::strerror(error_number);
  switch (stage) {
    case kStageChdir: return "cannot enter the workdir " + workdir.string() + ": " + reason;
    case kStageExec: return "cannot execute /bin/sh: " + reason;
    case kStageRlimit: return "cannot set the command's resource limits: " + reason;
    case kStageFork: return "the command launcher cannot fork: " + reason;
    case kStageMessage: return "the command launcher cannot read the command: " + reason;
    default: return "cannot redirect the command's stdin/stdout/stderr: " + reason;
  }
}

}  // namespace kg::sandbox
