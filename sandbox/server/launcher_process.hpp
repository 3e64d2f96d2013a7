// The command launcher's side: a fork of the sandbox server that joins the commands' cgroup once
// and then starts every command from inside it, so no command pays for a cgroup migration (on
// cgroup v1 a migration waits for an RCU grace period: 6-15 ms once the lock has been idle).
// The server's side is command_launcher.hpp, which also says why it is safe.
//
// The launcher never executes anything itself and never returns to the server's code: it runs
// in a fork of a multithreaded process, so it only makes syscalls (no allocation, no locks).
// Its children are the server's (CLONE_PARENT), born in the commands' cgroup.
//
// Protocol on a SOCK_SEQPACKET socketpair:
//   launcher -> server  LauncherReply{ready, errno}: once, after joining the cgroups (errno 0),
//                       or why it could not (then it exits);
//   server -> launcher  LauncherRequest{run} + 5 descriptors (payload memfd, stdin, stdout,
//                       stderr, status pipe): the child reports on the status pipe
//                       (command_exec.hpp), the launcher sends nothing back;
//   server -> launcher  LauncherRequest{kill_all}: kill(-1, SIGKILL) (the server is pid 1: every
//                       process but the server and the launcher), then LauncherReply{killed}.
// The launcher exits when the server's end closes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "command_exec.hpp"

namespace kg::sandbox {

inline constexpr std::size_t kMaxLauncherLimits = 3;
inline constexpr int kLauncherRunDescriptors = 5;

struct LauncherRequest {
  enum Op : int { run = 1, kill_all = 2 };
  int op = 0;
  int highest_fd = 0;
  // The payload (a memfd): argv_count + env_count + 2 pointer slots the launcher fills, then
  // NUL-terminated strings: argv..., envp..., the workdir, and the shell fallback when
  // has_shell_fallback (CommandExecPlan::shell_fallback).
  std::uint32_t argv_count = 0;
  std::uint32_t env_count = 0;
  std::uint32_t has_shell_fallback = 0;
  std::uint64_t payload_bytes = 0;
  std::uint32_t limit_count = 0;
  PreparedLimit limits[kMaxLauncherLimits]{};
};

struct LauncherReply {
  enum Kind : int { ready = 1, killed = 2 };
  int kind = 0;
  int error_number = 0;
};

// In the freshly forked launcher: joins each cgroup (writes "0" to each cgroup.procs
// descriptor), gives up privileges and every catchable signal, closes every descriptor but
// `socket_fd` and serves requests until the server's end closes. Never returns.
[[noreturn]] void serve_as_command_launcher(int socket_fd, const int* cgroup_fds,
                                            std::size_t cgroup_count);

}  // namespace kg::sandbox
