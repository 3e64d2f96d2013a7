// A command started ahead of its call: /execute with "prestart" (docs/sandbox-api.md,
// "Prestarted commands"). Such a command takes its call on stdin, so the process can be born,
// exec'd and initialized (the Yaegi runner loads its symbol tables) while no call is waiting,
// and the call pays only for its own work.
//
// How it keeps calls apart: one prestarted process serves exactly one call and then ends like
// any command (its group killed, strays reaped). The server starts the next one only after the
// last command's processes are all gone, with the server's own environment (nothing of any call), and
// kills it before any other command runs, so no user code ever runs beside a waiting process.
// Until its call comes it holds no call data at all: the call's environment and arguments reach
// it on its stdin, a pipe only the server holds. It is born like every command (the launcher,
// the commands' cgroup, no_new_privs, the rlimits), and the limits, command and workdir it was
// born with must equal the call's, else it is discarded and the call starts a fresh one.
//
// Owned by RouteContext; used only under the /execute lock.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "command_runner.hpp"
#include "shell_process.hpp"
#include "unique_fd.hpp"

namespace kg::sandbox {

class CommandLauncher;

// What a prestarted process was born with; a call takes it only when its own are equal.
struct PrestartShape {
  std::string command;
  std::filesystem::path workdir;
  CommandLimits limits;
  bool operator==(const PrestartShape&) const = default;
};

PrestartShape prestart_shape_of(const CommandRequest& request);

// The call as the command reads it on stdin: each "NAME=value" of its environment, an empty
// entry, then each argument; every entry NUL-terminated.
std::string call_message(const std::vector<std::string>& environment,
                         const std::vector<std::string>& arguments);

class PrestartedCommand {
 public:
  // Starts `shape.command` (as every command: `sh -c`, or a plain exec's program itself) with the server's environment and stdin
  // on a pipe. Throws std::runtime_error as start_shell_process does.
  PrestartedCommand(const PrestartShape& shape, CommandLauncher* launcher);
  ~PrestartedCommand();  // kills and reaps the process unless its call took it
  // SIGKILL without waiting for the process to be torn down (a Go runner's memory takes
  // milliseconds): it runs no instruction after the signal, so a command may start at once;
  // the destructor reaps it later (through a pidfd, so a pid the stray reaper already reaped
  // and the kernel reused is never touched).
  void kill_now() noexcept;
  PrestartedCommand(const PrestartedCommand&) = delete;
  PrestartedCommand& operator=(const PrestartedCommand&) = delete;

  const PrestartShape& shape() const noexcept { return shape_; }
  pid_t pid() const noexcept { return process_.pid; }
  // Still running and waiting (a process that died meanwhile cannot take a call).
  bool waiting() const;
  // Hands the call to the process (writes call_message to its stdin and closes it) and gives
  // the process to the caller, who supervises it as the command (run_started_command). A
  // process that no longer reads (it exited) is given all the same: its exit code and output
  // are the command's outcome.
  ShellProcess take(const std::vector<std::string>& environment,
                    const std::vector<std::string>& arguments);

 private:
  void kill_and_reap() noexcept;

  PrestartShape shape_;
  ShellProcess process_;
  UniqueFd pidfd_;
  UniqueFd stdin_pipe_;
  bool taken_ = false;
  bool killed_ = false;
};

}  // namespace kg::sandbox
