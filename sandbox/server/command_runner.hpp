// Runs one /execute command to the end: `/bin/sh -c` (or a plain exec's program itself,
// plain_exec.hpp) in the workdir, in its own process group,
// with each output stream capped, a deadline, and cancellation when the HTTP client goes away.
// Whatever happens, nothing of the command's process group survives the call (and, with
// reap_strays, nothing else the command started either).
//
// Called by the /execute route on the thread serving the request. The route serializes calls;
// run_command itself keeps all its state on the stack.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <sys/types.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shell_process.hpp"

namespace kg::sandbox {

class CommandLauncher;
class OutputListener;  // output_streamer.hpp

// A stream over its limit keeps its head and its tail (the end of what was printed, so the
// last lines before a crash or a summary survive) with this marker between them:
// "\n... [N bytes discarded] ...\n" (truncation_marker).
std::string truncation_marker(std::uint64_t discarded_bytes);
// The share of a stream's limit kept for its tail: a quarter, at most 64 KiB.
std::uint64_t tail_bytes_of(std::uint64_t limit);

// Per-command process limits (setrlimit in the child, before exec); 0 leaves a limit as the
// server inherited it. Memory and process counts are the host's business (cgroups).
struct CommandLimits {
  std::uint64_t cpu_seconds = 0;      // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
  std::uint64_t file_size_bytes = 0;  // RLIMIT_FSIZE: larger writes fail with EFBIG
  std::uint64_t open_files = 0;       // RLIMIT_NOFILE
  bool operator==(const CommandLimits&) const = default;
};

struct CommandRequest {
  std::string command;
  std::vector<std::pair<std::string, std::string>> env;  // overlays the server's environment
  std::chrono::milliseconds timeout{60'000};
  std::uint64_t output_limit_bytes = 4ull << 20;  // per stream: head and tail kept, middle dropped
  std::filesystem::path workdir;
  CommandLimits limits;
  int cancel_watch_fd = -1;  // a connected socket; its peer hanging up kills the command
  bool reap_strays = false;  // see stray_process_reaper.hpp
  // A process killed before this command started whose teardown the reaper need not wait for
  // (a prestarted runner an ordinary command displaced, stray_process_reaper.hpp).
  std::optional<pid_t> dying_process;
  // Starts the command inside the commands' cgroup (command_launcher.hpp); null: the server
  // has none and forks the command itself.
  CommandLauncher* launcher = nullptr;
  // Run in a sandbox where nothing earlier commands wrote outside the workdir is readable
  // (command_state.hpp): for builds whose output is cached for everyone.
  bool clean_state = false;
  // The command takes its call on stdin (prestarted_command.hpp): these are its arguments.
  std::optional<std::vector<std::string>> prestart_arguments;
  // Hears the output as it is read (a streamed /execute, output_streamer.hpp); null: none. The
  // captured result is the same either way.
  OutputListener* output = nullptr;
};

struct CommandResult {
  std::string stdout_text;  // head, truncation_marker and tail when truncated
  std::string stderr_text;
  int exit_code = 0;  // 128 + signal when killed by a signal
  int signal = 0;     // 0 unless killed by a signal
  bool timed_out = false;
  // The leader used up limits.cpu_seconds (killed by SIGXCPU, or by SIGKILL at the hard limit).
  bool cpu_limit_exceeded = false;
  bool cancelled = false;  // the client hung up
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::uint64_t stdout_discarded_bytes = 0;  // printed but not kept (the marker's N)
  std::uint64_t stderr_discarded_bytes = 0;
  std::uint64_t duration_ms = 0;
};

// Throws std::runtime_error when the command cannot be started (see start_shell_process) or
// waiting for it fails; a command that fails, times out or is killed is a result, not an error.
CommandResult run_command(const CommandRequest& request);

// The same for a command already started (a prestarted one, prestarted_command.hpp): its
// deadline counts from `started`, the moment its call was handed to it.
CommandResult run_started_command(ShellProcess child, const CommandRequest& request,
                                  std::chrono::steady_clock::time_point started);

// The server's environment (`environ`) with `overrides` replacing or adding variables.
std::vector<std::string> overlay_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace kg::sandbox
