#include "command_runner.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>

#include "command_launcher.hpp"
#include "output_streamer.hpp"
#include "shell_process.hpp"
#include "stray_process_reaper.hpp"
#include "unique_fd.hpp"

extern char** environ;

namespace kg::sandbox {

std::string truncation_marker(std::uint64_t discarded_bytes) {
  return "\n... [" + std::to_string(discarded_bytes) + " bytes discarded] ...\n";
}

std::uint64_t tail_bytes_of(std::uint64_t limit) {
  return std::min<std::uint64_t>(limit / 4, 64 * 1024);
}

namespace {

using Clock = std::chrono::steady_clock;

// After the shell exits, pipes still held by escaped grandchildren are read this long, then
// closed, so `daemon & echo hi` returns at once.
constexpr std::chrono::milliseconds kDrainAfterExit{100};
// Without a pidfd the child's exit is noticed by polling this often.
constexpr int kExitPollMs = 10;

// One captured stream within `limit` bytes: the first limit - tail_bytes_of(limit) bytes, and
// the last tail_bytes_of(limit) of the rest; what falls between is counted, not kept.
class CappedOutput {
 public:
  explicit CappedOutput(std::uint64_t limit)
      : head_limit_(limit - tail_bytes_of(limit)), tail_limit_(tail_bytes_of(limit)) {}
  void append(std::span<const char> bytes) {
    total_ += bytes.size();
    const std::uint64_t room = head_limit_ - std::min<std::uint64_t>(head_limit_, head_.size());
    const std::size_t to_head = static_cast<std::size_t>(std::min<std::uint64_t>(room, bytes.size()));
    head_.append(bytes.data(), to_head);
    bytes = bytes.subspan(to_head);
    if (bytes.empty() || tail_limit_ == 0) return;
    // The tail is trimmed to its limit only when it doubled, so a flood costs amortized O(1).
    tail_.append(bytes.data(), bytes.size());
    if (tail_.size() > 2 * tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
  }
  bool truncated() const { return discarded() > 0; }
  std::uint64_t discarded() const {
    const std::uint64_t kept_tail = std::min<std::uint64_t>(tail_.size(), tail_limit_);
    return total_ - head_.size() - kept_tail;
  }
  std::string take() {
    if (tail_.size() > tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
    if (total_ == head_.size() + tail_.size()) return head_ + tail_;
    return head_ + truncation_marker(discarded()) + tail_;
  }

 private:
  std::uint64_t head_limit_;
  std::uint64_t tail_limit_;
  std::string head_;
  std::string tail_;
  std::uint64_t total_ = 0;
};

// Reads what is available (at most 1 MiB, so a flood cannot starve the deadline check);
// closes the pipe at end of file.
// A listener (a streamed /execute) hears the same bytes.
void drain_pipe(UniqueFd& pipe, CappedOutput& output, OutputListener* listener, bool is_stderr) {
  char buffer[64 * 1024];
  for (int chunk = 0; chunk < 16; ++chunk) {
    const ssize_t got = ::read(pipe.get(), buffer, sizeof buffer);
    if (got > 0) {
      const std::span<const char> bytes(buffer, static_cast<std::size_t>(got));
      output.append(bytes);
      if (listener != nullptr) listener->printed(is_stderr, bytes);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EAGAIN) return;
    pipe.reset();  // EOF, or an error no retry will cure
    return;
  }
}

UniqueFd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
  (void)pid;
  return UniqueFd();
#endif
}

// True once the child has exited; leaves it a zombie so its pid (= the group id) cannot be
// reused before the group is killed.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    throw std::runtime_error(std::string("Cannot wait for the command: ") + std::strerror(errno));
  }
  return info.si_pid == pid;
}

// The peer closed the connection: hang-up flags, or readable with nothing to read.
// Data from the peer (a pipelined request) is left alone; *watch_readable is cleared so the
// socket does not keep poll() busy.
bool client_hung_up(const pollfd& entry, bool* watch_readable) {
  if (entry.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) return true;
  if (!(entry.revents & POLLIN)) return false;
  char byte;
  const ssize_t got = ::recv(entry.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got == 0) return true;
  if (got > 0) *watch_readable = false;
  return false;
}

// Makes sure no exception leaves the command's group running or its zombie unreaped.
class ProcessGroupGuard {
 public:
  explicit ProcessGroupGuard(pid_t leader) : leader_(leader) {}
  ProcessGroupGuard(const ProcessGroupGuard&) = delete;
  ProcessGroupGuard& operator=(const ProcessGroupGuard&) = delete;
  ~ProcessGroupGuard() {
    if (reaped_) return;
    ::kill(-leader_, SIGKILL);
    int status;
    while (::waitpid(leader_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // Kills what is left of the group, then collects the leader's exit status and CPU use.
  int kill_rest_and_reap(rusage* usage) {
    ::kill(-leader_, SIGKILL);
    int status = 0;
    while (::wait4(leader_, &status, 0, usage) < 0) {
      if (errno != EINTR) {
        throw std::runtime_error(std::string("Cannot collect the command's exit status: ") +
                                 std::strerror(errno));
      }
    }
    reaped_ = true;
    return status;
  }

 private:
  pid_t leader_;
  bool reaped_ = false;
};

int milliseconds_until(Clock::time_point when) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(when - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1'000'000));
}

// SIGXCPU at the soft limit, or SIGKILL at the hard one (soft + 1 s) for a program that
// ignores SIGXCPU: then its CPU time shows it.
bool used_up_cpu_limit(int signal, const rusage& usage, const CommandLimits& limits) {
  if (limits.cpu_seconds == 0) return false;
  if (signal == SIGXCPU) return true;
  const auto cpu_seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec;
  return signal == SIGKILL && static_cast<std::uint64_t>(cpu_seconds) >= limits.cpu_seconds;
}

}  // namespace

std::vector<std::string> overlay_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool overridden = std::any_of(overrides.begin(), overrides.end(),
                                        [&](const auto& item) { return item.first == name; });
    if (!overridden) environment.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) environment.push_back(name + "=" + value);
  return environment;
}

CommandResult run_command(const CommandRequest& request) {
  const auto started = Clock::now();
  const ChildLimits child_limits{request.limits.cpu_seconds, request.limits.file_size_bytes,
                                 request.limits.open_files};
  return run_started_command(
      start_shell_process(request.command, overlay_environment(request.env), request.workdir,
                          child_limits, request.launcher),
      request, started);
}

CommandResult run_started_command(ShellProcess child, const CommandRequest& request,
                                  std::chrono::steady_clock::time_point started) {
  const auto deadline = started + request.timeout;
  ProcessGroupGuard group(child.pid);
  const UniqueFd pidfd = open_pidfd(child.pid);
  CappedOutput out(request.output_limit_bytes), err(request.output_limit_bytes);
  CommandResult result;
  bool watch_client = request.cancel_watch_fd >= 0, watch_client_readable = true;
  bool killed = false;
  std::optional<int> exit_status;
  rusage leader_usage{};
  Clock::time_point drain_deadline;

  const auto kill_group = [&] {
    ::kill(-child.pid, SIGKILL);
    killed = true;
  };
  for (;;) {
    if (!exit_status && has_exited(child.pid)) {
      exit_status = group.kill_rest_and_reap(&leader_usage);
      drain_deadline = Clock::now() + kDrainAfterExit;
    }
    const bool pipes_open = child.stdout_pipe || child.stderr_pipe;
    if (exit_status && (!pipes_open || Clock::now() >= drain_deadline)) break;
    if (!exit_status && !killed && Clock::now() >= deadline) {
      result.timed_out = true;
      kill_group();
      continue;
    }

    std::vector<pollfd> watched;
    const auto watch = [&](int fd, short events) { watched.push_back(pollfd{fd, events, 0}); };
    if (child.stdout_pipe) watch(child.stdout_pipe.get(), POLLIN);
    if (child.stderr_pipe) watch(child.stderr_pipe.get(), POLLIN);
    std::optional<std::size_t> client_index;
    if (watch_client && !exit_status) {
      client_index = watched.size();
      watch(request.cancel_watch_fd,
            static_cast<short>(POLLRDHUP | (watch_client_readable ? POLLIN : 0)));
    }
    if (pidfd && !exit_status) watch(pidfd.get(), POLLIN);
    int wait_ms = exit_status ? milliseconds_until(drain_deadline)
                              : (killed ? 1000 : milliseconds_until(deadline));
    if (!exit_status && !pidfd) wait_ms = std::min(wait_ms, kExitPollMs);
    // A partial line waits at most this long to be streamed.
    if (request.output != nullptr) {
      wait_ms = std::min(wait_ms, static_cast<int>(OutputStreamer::kPartialLineWait.count()));
    }
    if (::poll(watched.data(), watched.size(), wait_ms) < 0 && errno != EINTR) {
      throw std::runtime_error(std::string("Cannot wait for the command's output: ") +
                               std::strerror(errno));
    }
    if (child.stdout_pipe) drain_pipe(child.stdout_pipe, out, request.output, false);
    if (child.stderr_pipe) drain_pipe(child.stderr_pipe, err, request.output, true);
    if (request.output != nullptr) request.output->idle();
    if (client_index && client_hung_up(watched[*client_index], &watch_client_readable)) {
      result.cancelled = true;
      watch_client = false;
      kill_group();
    }
  }
  if (request.reap_strays) kill_stray_processes(request.launcher, request.dying_process);
  // A launcher the command killed is replaced now, while the answer goes out, not when the
  // next command is already waiting.
  if (request.launcher != nullptr) request.launcher->start_if_gone();

  if (WIFSIGNALED(*exit_status)) {
    result.signal = WTERMSIG(*exit_status);
    result.exit_code = 128 + result.signal;
    result.cpu_limit_exceeded = used_up_cpu_limit(result.signal, leader_usage, request.limits);
  } else {
    result.exit_code = WEXITSTATUS(*exit_status);
    result.timed_out = false;  // it finished on its own just as the deadline passed
  }
  result.stdout_truncated = out.truncated();
  result.stderr_truncated = err.truncated();
  result.stdout_discarded_bytes = out.discarded();
  result.stderr_discarded_bytes = err.discarded();
  result.stdout_text = out.take();
  result.stderr_text = err.take();
  result.duration_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count());
  return result;
}

}  // namespace kg::sandbox
