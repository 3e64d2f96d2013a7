#include "process_spawner.hpp"

#include "program_path.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>


namespace kg::sandbox {
namespace {

constexpr unsigned kCloseRangeCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC

// What the child reports on the status pipe when it cannot exec.
struct ChildFailure {
  int step;
  int error_number;
};
enum Step : int { open_log = 1, inherit_fds, join_cgroup, change_user, exec_program };

std::string describe_step(int step) {
  switch (step) {
    case open_log: return "opening its log file";
    case inherit_fds: return "passing it its file descriptors";
    case join_cgroup: return "moving it into its cgroup";
    case change_user: return "switching to the sandbox's host user";
    default: return "executing it";
  }
}

// argv[0] as execve needs it: searched on PATH unless it holds a '/'.
std::string resolve_program(const std::string& program) {
  if (auto found = find_program(program)) return *found;
  throw std::runtime_error("Cannot start " + program + ": it is not an executable on PATH");
}

// Runs in the forked child of a multithreaded daemon: async-signal-safe calls only.
[[noreturn]] void fail(int status_fd, int step) {
  const ChildFailure failure{step, errno};
  [[maybe_unused]] const auto ignored = ::write(status_fd, &failure, sizeof failure);
  ::_exit(127);
}

struct ChildPlan {
  const char* program;
  std::vector<char*> argv;
  const char* log_path;
  std::vector<std::pair<int, int>> fds;
  std::vector<const char*> cgroup_files;
  bool change_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

[[noreturn]] void exec_child(const ChildPlan& plan, int status_fd) {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    ::sigaction(signal_number, &default_action, nullptr);
  }
  // Whatever mask the daemon's threads have: sandboxes make files others (the daemon, the
  // binary cache's readers) can read, and folders they can enter.
  ::umask(022);
  const int log = ::open(plan.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null < 0) fail(status_fd, open_log);
  // Park every inherited descriptor above the targets first, so no dup2 clobbers another.
  int parked[64];
  const std::size_t count = plan.fds.size() < 64 ? plan.fds.size() : 64;
  for (std::size_t i = 0; i < count; ++i) {
    parked[i] = ::fcntl(plan.fds[i].first, F_DUPFD_CLOEXEC, 256);
    if (parked[i] < 0) fail(status_fd, inherit_fds);
  }
  if (::dup2(null, 0) != 0 || ::dup2(log, 1) != 1 || ::dup2(log, 2) != 2) fail(status_fd, open_log);
  ::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec);  // nothing else of the daemon leaks
  for (std::size_t i = 0; i < count; ++i) {
    if (::dup2(parked[i], plan.fds[i].second) != plan.fds[i].second) fail(status_fd, inherit_fds);
  }
  for (const char* file : plan.cgroup_files) {
    const int fd = ::open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, "0", 1) != 1) fail(status_fd, join_cgroup);
    ::close(fd);
  }
  if (plan.change_user) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(plan.gid) != 0 || ::setuid(plan.uid) != 0) {
      fail(status_fd, change_user);
    }
  }
  // Nothing of the daemon's environment (tokens, HOME, GOPROXY, ...) reaches a sandbox, not even
  // bubblewrap's own, which its pid 1 would otherwise show in /proc/<pid>/environ.
  static char path[] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  static char* const clean_environment[] = {path, nullptr};
  ::execve(plan.program, plan.argv.data(), clean_environment);
  fail(status_fd, exec_program);
}

pid_t spawn_now(const std::vector<std::string>& argv, const std::string& log_path,
                const SpawnOptions& options) {
  if (options.inherited_fds.size() > 64) {
    throw std::runtime_error("Cannot start " + argv[0] + ": more than 64 descriptors to pass");
  }
  // Everything the child needs is prepared before fork.
  const std::string program = resolve_program(argv[0]);
  std::vector<std::string> args = argv;
  ChildPlan plan;
  plan.program = program.c_str();
  for (auto& arg : args) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  plan.log_path = log_path.c_str();
  plan.fds = options.inherited_fds;
  for (const auto& file : options.cgroup_procs_files) plan.cgroup_files.push_back(file.c_str());
  if (options.uid) {
    plan.change_user = true;
    plan.uid = *options.uid;
    plan.gid = options.gid.value_or(static_cast<gid_t>(*options.uid));
  }
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("Cannot start ") + argv[0] + ": " + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(status_pipe[0]);
    ::close(status_pipe[1]);
    throw std::runtime_error(std::string("Cannot start ") + argv[0] + ": fork: " + std::strerror(error));
  }
  if (pid == 0) exec_child(plan, status_pipe[1]);
  ::close(status_pipe[1]);
  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(status_pipe[0], &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    int ignored;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error("Cannot start " + program + ": failed while " +
                             describe_step(failure.step) + ": " + std::strerror(failure.error_number));
  }
  return pid;
}

}  // namespace

ProcessSpawner::ProcessSpawner() : thread_([this] { run(); }) {}

ProcessSpawner::~ProcessSpawner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

pid_t ProcessSpawner::spawn(const std::vector<std::string>& argv, const std::string& log_path,
                            const SpawnOptions& options) {
  if (argv.empty()) throw std::runtime_error("Cannot start a process without a program");
  auto task = std::make_shared<std::packaged_task<pid_t()>>(
      [&argv, &log_path, &options] { return spawn_now(argv, log_path, options); });
  auto result = task->get_future();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw std::runtime_error("Cannot start " + argv[0] + ": the daemon is stopping");
    jobs_.emplace_back([task] { (*task)(); });
  }
  wake_.notify_one();
  return result.get();
}

void ProcessSpawner::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty() && stopping_) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace kg::sandbox
