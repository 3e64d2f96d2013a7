// Starts `/bin/sh -c <command>` (or, for a plain `exec /program word ...`, the program itself:
// plain_exec.hpp) as the leader of its own process group, with stdin on /dev/null
// (or a descriptor the caller gives: a prestarted command's pipe) and stdout/stderr on pipes the caller reads, no way to gain privileges (no_new_privs), first in
// line for the OOM killer, and the given rlimits (command_exec.hpp). Either a fork of the server
// or, when the server has a commands' cgroup, a child the command launcher starts inside it
// (command_launcher.hpp); a child of the server either way.
//
// Called by run_command() on the thread serving /execute.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "unique_fd.hpp"

namespace kg::sandbox {

struct ShellProcess {
  pid_t pid = -1;  // also the process group id
  UniqueFd stdout_pipe;
  UniqueFd stderr_pipe;
};

// Process limits applied in the child before exec (see CommandLimits); resources the command
// may not raise again.
struct ChildLimits {
  std::uint64_t cpu_seconds = 0;
  std::uint64_t file_size_bytes = 0;
  std::uint64_t open_files = 0;
};

class CommandLauncher;

// `environment` holds "NAME=value" strings, the command's whole environment. With a `launcher`
// the command is born in the commands' cgroup; without, it runs where the server does. The
// pipes are returned non-blocking. Throws std::runtime_error when pipes cannot be made, fork
// fails, the launcher cannot be made ready, the workdir cannot be entered or /bin/sh cannot be
// executed; no child is left behind then.
ShellProcess start_shell_process(const std::string& command,
                                 const std::vector<std::string>& environment,
                                 const std::filesystem::path& workdir,
                                 const ChildLimits& limits = {},
                                 CommandLauncher* launcher = nullptr, int stdin_fd = -1);

}  // namespace kg::sandbox
