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
// Called by run_command() after each command, on the thread serving /execute.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <vector>

namespace kg::sandbox {

// Every process listed under `proc_root` except pid 1, `self` and self's ancestors.
std::vector<pid_t> find_stray_processes(pid_t self,
                                        const std::filesystem::path& proc_root = "/proc");

// Kills every process but the server and its ancestors, and waits (about 2 s at most) until none
// is left; returns how many it signalled or reaped.
std::size_t kill_stray_processes();

}  // namespace kg::sandbox
