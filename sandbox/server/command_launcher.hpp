// Starts commands from inside the commands' cgroup without moving a process there per command.
//
// Why: every command must run in the commands' cgroup (its memory and pids limits; an OOM kill
// there never reaches the server), and moving a process into a cgroup takes the kernel's
// cgroup_threadgroup_rwsem for writing, which on cgroup v1 waits for an RCU grace period once
// the lock has been idle: 6-15 ms per command. So the server forks one launcher
// (launcher_process.hpp) that joins the cgroup once and clones every command there as the
// server's own child (CLONE_PARENT): the server waits for it, times it, kills its group and
// reads its CPU use exactly as before, and the command starts with the same environment,
// descriptors, rlimits and no_new_privs as a fork of the server would.
//
// Why it is safe: the launcher is a fork of the server that never executes anything: not
// dumpable (no ptrace, no /proc/<pid>/mem for the commands), in its own process group, ignoring
// every catchable signal, holding no descriptor but its socket. A command can still SIGKILL or
// SIGSTOP it; the server notices (a pidfd, the socket, an answer that does not come) and starts
// another, and a command is never started anywhere but inside the launcher's cgroup. After each
// command the launcher itself sends kill(-1, SIGKILL) when the server is pid 1 (what the stray
// reaper did; see stray_process_reaper.hpp), which ends every process in the namespace but
// pid 1 and the launcher in one atomic pass.
//
// Owned by RouteContext (when the host hands the server cgroup descriptors); used only under
// the one-command-at-a-time lock of /execute, so it is not itself thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "command_exec.hpp"
#include "unique_fd.hpp"

namespace kg::sandbox {

// One command as the launcher receives it; the descriptors stay the caller's.
struct LaunchOrder {
  const std::vector<std::string>* argv = nullptr;
  const std::vector<std::string>* environment = nullptr;
  std::string workdir;
  // A plain exec's command for `/bin/sh -c` if its program cannot be executed (plain_exec.hpp);
  // null when argv is the shell already.
  const std::string* shell_fallback = nullptr;
  const std::vector<PreparedLimit>* limits = nullptr;
  int highest_fd = 1023;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int status_fd = -1;  // the write end; the child reports here (command_exec.hpp)
};

class CommandLauncher {
 public:
  // How long the launcher may take to join the cgroups, and to answer: a kill_all, or a run
  // (its child's first status record, shell_process.cpp).
  static constexpr std::chrono::milliseconds kReadyTimeout{10'000};
  static constexpr std::chrono::milliseconds kAnswerTimeout{2'000};

  // `cgroup_fds`: cgroup.procs descriptors (the server keeps owning them). Starts a launcher
  // at once (without waiting for it), so its one migration is off every command's path.
  explicit CommandLauncher(std::vector<int> cgroup_fds);
  ~CommandLauncher();  // kills the launcher
  CommandLauncher(const CommandLauncher&) = delete;
  CommandLauncher& operator=(const CommandLauncher&) = delete;

  // Hands one command to a live, ready launcher (starting another when it is gone). Throws
  // std::runtime_error when no launcher can be made ready: it could not join the cgroups
  // ("cannot join the commands' cgroup: <reason>"), fork failed, or it did not answer.
  void send(const LaunchOrder& order);
  // kill(-1, SIGKILL) sent by the launcher; false when it could not be asked or did not answer
  // in time (it is discarded then: the caller must kill everything itself).
  bool kill_everything_else();
  // Starts a launcher now when there is none (after discard()): it joins the cgroups while
  // the server answers the command that just ended. Never throws (send() retries).
  void start_if_gone() noexcept;
  // Kills the launcher (SIGKILL) and forgets it; the next send() starts another.
  void discard() noexcept;
  // The live launcher's pid (the stray reaper spares it), if any.
  std::optional<pid_t> pid() const;
  // How many launchers have been started (each one migration into the cgroups).
  unsigned started() const noexcept { return started_; }

 private:
  void start();
  bool alive() const;
  void wait_until_ready();

  std::vector<int> cgroup_fds_;
  pid_t pid_ = -1;
  UniqueFd pidfd_;
  UniqueFd socket_;
  bool ready_ = false;
  unsigned started_ = 0;
};

}  // namespace kg::sandbox
