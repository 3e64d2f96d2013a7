// The last steps of starting a command, shared by both ways a command is born: a fork of the
// server (no commands' cgroup) and a child of the command launcher (command_launcher.hpp). The
// server prepares everything before the fork; become_command() then only makes syscalls
// (async-signal-safe, no allocation), because it runs in a fork of a multithreaded process.
//
// The status pipe tells the server how it went: a StatusRecord "started" with the child's pid
// first, then a "failed" one if exec cannot happen; end of file after "started" means exec
// succeeded (the pipe is close-on-exec).
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kg::sandbox {

// One rlimit to set in the child, computed before fork.
struct PreparedLimit {
  int resource;
  rlimit value;
};

// What a command's child writes to its status pipe (fixed size: one write, never torn).
struct StatusRecord {
  enum Kind : int { started = 1, failed = 2 };
  int kind = 0;
  int pid_or_stage = 0;  // started: the child's pid; failed: a FailureStage
  int error_number = 0;  // failed: errno
};

enum FailureStage : int {
  kStageChdir = 1,
  kStageExec = 2,
  kStageRedirect = 3,
  kStageRlimit = 4,
  kStageFork = 6,      // the launcher could not clone the child
  kStageMessage = 7,   // the launcher could not read the command it was sent
};

// Everything become_command needs, as plain pointers and numbers.
struct CommandExecPlan {
  const char* workdir = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int status_fd = -1;
  int highest_fd = 1023;  // close-on-exec is set up to here when close_range is missing
  const PreparedLimit* limits = nullptr;
  std::size_t limit_count = 0;
  // A plain exec run without the shell (plain_exec.hpp): the command for `/bin/sh -c` when
  // executing argv[0] fails, so the shell reports it as it always did. Null: argv is the shell.
  const char* shell_fallback = nullptr;
};

// In the child: reports its pid, becomes its own process group leader, gives up gaining
// privileges (no_new_privs), volunteers for the OOM killer, takes the rlimits, default signal
// handling and an empty mask, stdin/stdout/stderr, marks every other descriptor close-on-exec,
// enters the workdir and executes argv[0] (or, when that fails and there is a shell_fallback,
// `/bin/sh -c shell_fallback`). Never returns: on failure it writes a "failed" record and exits
// with 127.
[[noreturn]] void become_command(const CommandExecPlan& plan);

// In a child: writes a "failed" record with errno and exits with 127.
[[noreturn]] void fail_in_child(int status_fd, int stage);

// Never above the server's own hard limits (an unprivileged process cannot raise them).
std::vector<PreparedLimit> prepare_limits(std::uint64_t cpu_seconds, std::uint64_t file_size_bytes,
                                          std::uint64_t open_files);

// The highest descriptor number this process may hold (for the close-on-exec fallback).
int highest_possible_fd();

// "cannot enter the workdir …: <reason>" and the like, for a "failed" record.
std::string describe_child_failure(int stage, int error_number,
                                   const std::filesystem::path& workdir);

}  // namespace kg::sandbox
