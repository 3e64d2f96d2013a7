// Finds and kills the processes a command left behind outside its process group (a `setsid`
// double fork escapes a group kill). Only meaningful when the server is alone in its own pid
// namespace (`--reap-strays`): then every visible process other than pid 1, the server and its
// ancestors came from a command.
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

// SIGKILLs what find_stray_processes(getpid()) returns; returns how many were signalled.
std::size_t kill_stray_processes();

}  // namespace kg::sandbox
