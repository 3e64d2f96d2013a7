// Finds and kills the processes a command left behind outside its process group (a `setsid`
// double fork escapes a group kill). Only meaningful when the server is alone in its own pid
// namespace (`--reap-strays`): then every visible process other than pid 1, the server and its
// ancestors came from a command.
//
// As the namespace's pid 1 (local sandboxes run it with --as-pid-1) the kill is atomic:
// kill(-1, SIGKILL) signals every other process in one pass that no fork can outrun (a child
// forked meanwhile is refused, its parent having a fatal signal pending), and everything whose
// parent died is reparented to pid 1 and reaped here. Elsewhere /proc is scanned again and again
// until a pass finds nothing left.
//
// The command launcher (command_launcher.hpp) is no stray: it lives between commands. As pid 1
// the server asks it to send the kill(-1) (which spares the sender as it spares pid 1), so the
// pass stays atomic; when it cannot (the command killed or stopped it) the server sends it
// itself, ending the launcher too, and a new one is started.
//
// Called by run_command() after each command, on the thread serving /execute.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <vector>

namespace kg::sandbox {

class CommandLauncher;

// Every process listed under `proc_root` except pid 1, `self`, self's ancestors and `spared`.
std::vector<pid_t> find_stray_processes(pid_t self,
                                        const std::filesystem::path& proc_root = "/proc",
                                        const std::vector<pid_t>& spared = {});

// Kills every process but the server, its ancestors and the launcher (when given and alive),
// and waits (about 2 s at most) until none is left but `dying`: a process already sent SIGKILL
// before the command started (a prestarted runner, prestarted_command.hpp), which runs nothing
// more but whose teardown the command's answer need not wait for. Returns how many it
// signalled or reaped.
std::size_t kill_stray_processes(CommandLauncher* launcher = nullptr,
                                 std::optional<pid_t> dying = std::nullopt);

}  // namespace kg::sandbox
