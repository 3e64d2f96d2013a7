#include "shell_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

#ifndef CLOSE_RANGE_CLOEXEC
constexpr unsigned kCloseRangeCloexec = 1u << 2;
#else
constexpr unsigned kCloseRangeCloexec = CLOSE_RANGE_CLOEXEC;
#endif

// What the child writes to the status pipe when it cannot exec.
struct ChildFailure {
  int stage;  // 1 = chdir, 2 = execve, 3 = redirecting stdio, 4 = setrlimit, 5 = cgroup
  int error_number;
};

// One rlimit to set in the child, computed before fork.
struct PreparedLimit {
  int resource;
  rlimit value;
};

// Never above the server's own hard limit (an unprivileged process cannot raise it).
PreparedLimit prepare_limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit current{};
  if (::getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY) {
    hard = std::min(hard, current.rlim_max);
    soft = std::min(soft, hard);
  }
  return PreparedLimit{resource, rlimit{soft, hard}};
}

std::vector<PreparedLimit> prepare_limits(const ChildLimits& limits) {
  std::vector<PreparedLimit> prepared;
  if (limits.cpu_seconds > 0) {
    // SIGXCPU at the soft limit, SIGKILL a second later for programs that ignore SIGXCPU.
    prepared.push_back(prepare_limit(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1));
  }
  if (limits.file_size_bytes > 0) {
    prepared.push_back(prepare_limit(RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes));
  }
  if (limits.open_files > 0) {
    prepared.push_back(prepare_limit(RLIMIT_NOFILE, limits.open_files, limits.open_files));
  }
  return prepared;
}

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Pipe make_pipe(const char* purpose) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("Cannot create the ") + purpose +
                             " pipe: " + std::strerror(errno));
  }
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Everything below runs in the forked child: async-signal-safe calls only, no allocation.
[[noreturn]] void fail_in_child(int status_fd, int stage) {
  const ChildFailure failure{stage, errno};
  [[maybe_unused]] const auto ignored = ::write(status_fd, &failure, sizeof failure);
  ::_exit(127);
}

bool move_to(int fd, int target) {
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;  // dup2 would keep close-on-exec
  return ::dup2(fd, target) == target;
}

// The OOM killer takes the command, never the server that reports on it.
void volunteer_for_oom_killer() {
  const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  [[maybe_unused]] const auto ignored = ::write(fd, "1000", 4);
  ::close(fd);
}

[[noreturn]] void exec_in_child(const char* workdir, char* const argv[], char* const envp[],
                                int stdin_fd, int stdout_fd, int stderr_fd, int status_fd,
                                int highest_fd, const sigset_t& no_signals,
                                const std::vector<PreparedLimit>& limits,
                                const std::vector<int>& cgroup_fds) {
  ::setpgid(0, 0);
  for (const int fd : cgroup_fds) {
    if (::write(fd, "0", 1) != 1) fail_in_child(status_fd, 5);
  }
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  volunteer_for_oom_killer();
  for (const auto& limit : limits) {
    if (::setrlimit(limit.resource, &limit.value) != 0) fail_in_child(status_fd, 4);
  }
  ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    ::sigaction(signal_number, &default_action, nullptr);  // undo SIG_IGN (SIGPIPE) etc.
  }
  if (!move_to(stdin_fd, 0) || !move_to(stdout_fd, 1) || !move_to(stderr_fd, 2)) {
    fail_in_child(status_fd, 3);
  }
  // Server sockets are not close-on-exec; no descriptor of the server may reach the command.
  if (::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) != 0) {
    for (int fd = 3; fd <= highest_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (::chdir(workdir) != 0) fail_in_child(status_fd, 1);
  ::execve("/bin/sh", argv, envp);
  fail_in_child(status_fd, 2);
}

int highest_possible_fd() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65535;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536)) - 1;
}

std::string describe_failure(const ChildFailure& failure, const std::filesystem::path& workdir) {
  const std::string reason = std::strerror(failure.error_number);
  switch (failure.stage) {
    case 1: return "cannot enter the workdir " + workdir.string() + ": " + reason;
    case 2: return "cannot execute /bin/sh: " + reason;
    case 4: return "cannot set the command's resource limits: " + reason;
    case 5: return "cannot join the commands' cgroup: " + reason;
    default: return "cannot redirect the command's stdin/stdout/stderr: " + reason;
  }
}

void make_non_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

}  // namespace

ShellProcess start_shell_process(const std::string& command,
                                 const std::vector<std::string>& environment,
                                 const std::filesystem::path& workdir,
                                 const ChildLimits& limits) {
  // Everything the child needs is prepared here, before fork.
  std::string shell = "/bin/sh", flag = "-c", command_copy = command;
  char* argv[] = {shell.data(), flag.data(), command_copy.data(), nullptr};
  std::vector<std::string> environment_copy = environment;
  std::vector<char*> envp;
  envp.reserve(environment_copy.size() + 1);
  for (auto& entry : environment_copy) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const std::string workdir_text = workdir.string();
  const int highest_fd = highest_possible_fd();
  const std::vector<PreparedLimit> prepared_limits = prepare_limits(limits);
  sigset_t no_signals;
  sigemptyset(&no_signals);

  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null) throw std::runtime_error(std::string("Cannot open /dev/null: ") + std::strerror(errno));
  Pipe out = make_pipe("stdout");
  Pipe err = make_pipe("stderr");
  Pipe status = make_pipe("exec status");

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("Cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    exec_in_child(workdir_text.c_str(), argv, envp.data(), dev_null.get(), out.write_end.get(),
                  err.write_end.get(), status.write_end.get(), highest_fd, no_signals,
                  prepared_limits, limits.cgroup_fds);
  }
  status.write_end.reset();
  out.write_end.reset();
  err.write_end.reset();
  // Blocks until the child has exec'd (the pipe closes) or reported why it could not.
  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(status.read_end.get(), &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    int ignored_status;
    while (::waitpid(pid, &ignored_status, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error("Cannot run the command: " + describe_failure(failure, workdir));
  }
  make_non_blocking(out.read_end.get());
  make_non_blocking(err.read_end.get());
  return ShellProcess{pid, std::move(out.read_end), std::move(err.read_end)};
}

}  // namespace kg::sandbox
