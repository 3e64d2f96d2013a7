#include "launcher_process.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

// Everything here runs in a fork of the multithreaded server: syscalls only, no allocation.
namespace kg::sandbox {
namespace {

void reply(int socket_fd, int kind, int error_number) {
  const LauncherReply message{kind, error_number};
  [[maybe_unused]] const auto ignored = ::send(socket_fd, &message, sizeof message, MSG_NOSIGNAL);
}

// A command's processes share the launcher's uid and may signal it; only SIGKILL and SIGSTOP
// still reach it (the server notices either and starts another).
void ignore_every_signal() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    ::sigaction(signal_number, &ignore, nullptr);  // fails harmlessly for SIGKILL and SIGSTOP
  }
}

// Every descriptor but `keep` (and stdin/stdout/stderr) closed: the launcher must not hold the
// server's listening socket or connections open (a client would wait for an end of file).
void close_all_but(int keep) {
  const bool below_closed =
      keep == 3 || ::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u) == 0;
  if (!below_closed || ::syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) != 0) {
    const int highest = highest_possible_fd();
    for (int fd = 3; fd <= highest; ++fd) {
      if (fd != keep) ::close(fd);
    }
  }
}

void report_failure(int status_fd, int stage, int error_number) {
  const StatusRecord record{StatusRecord::failed, stage, error_number};
  [[maybe_unused]] const auto ignored = ::write(status_fd, &record, sizeof record);
}

// Fills the payload's pointer slots with the addresses of its strings; false when the strings
// are not all there.
bool lay_out(char* payload, const LauncherRequest& request, char*** argv, char*** envp,
             const char** workdir, const char** shell_fallback) {
  const std::uint64_t slots = std::uint64_t{request.argv_count} + request.env_count + 2;
  const std::uint64_t slot_bytes = slots * sizeof(char*);
  if (request.argv_count == 0 || slot_bytes >= request.payload_bytes) return false;
  auto** pointers = reinterpret_cast<char**>(payload);
  char* cursor = payload + slot_bytes;
  char* const end = payload + request.payload_bytes;
  const auto next_string = [&]() -> char* {
    char* start = cursor;
    while (cursor < end && *cursor != '\0') ++cursor;
    if (cursor == end) return nullptr;
    ++cursor;
    return start;
  };
  std::uint64_t slot = 0;
  for (std::uint32_t i = 0; i < request.argv_count; ++i) {
    if ((pointers[slot++] = next_string()) == nullptr) return false;
  }
  pointers[slot++] = nullptr;
  *envp = pointers + slot;
  for (std::uint32_t i = 0; i < request.env_count; ++i) {
    if ((pointers[slot++] = next_string()) == nullptr) return false;
  }
  pointers[slot++] = nullptr;
  *argv = pointers;
  *workdir = next_string();
  if (*workdir == nullptr) return false;
  if (request.has_shell_fallback == 0) return true;
  *shell_fallback = next_string();
  return *shell_fallback != nullptr;
}

// Starts one command as the server's child (CLONE_PARENT), born in the launcher's cgroups.
void launch(const LauncherRequest& request, const int* fds) {
  const int payload_fd = fds[0], status_fd = fds[4];
  if (request.limit_count > kMaxLauncherLimits || request.payload_bytes == 0) {
    report_failure(status_fd, kStageMessage, EINVAL);
    return;
  }
  void* mapping = ::mmap(nullptr, request.payload_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE,
                         payload_fd, 0);
  if (mapping == MAP_FAILED) {
    report_failure(status_fd, kStageMessage, errno);
    return;
  }
  CommandExecPlan plan;
  char** argv = nullptr;
  char** envp = nullptr;
  if (!lay_out(static_cast<char*>(mapping), request, &argv, &envp, &plan.workdir,
               &plan.shell_fallback)) {
    report_failure(status_fd, kStageMessage, EINVAL);
  } else {
    plan.argv = argv;
    plan.envp = envp;
    plan.stdin_fd = fds[1];
    plan.stdout_fd = fds[2];
    plan.stderr_fd = fds[3];
    plan.status_fd = status_fd;
    plan.highest_fd = request.highest_fd;
    plan.limits = request.limits;
    plan.limit_count = request.limit_count;
    // No new stack: like fork(), the child continues on a copy of this one.
    const long pid = ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) become_command(plan);
    if (pid < 0) report_failure(status_fd, kStageFork, errno);
  }
  ::munmap(mapping, request.payload_bytes);
}

}  // namespace

[[noreturn]] void serve_as_command_launcher(int socket_fd, const int* cgroup_fds,
                                            std::size_t cgroup_count) {
  // Its own group, so a signal meant for the server's group never reaches it.
  ::setpgid(0, 0);
  for (std::size_t i = 0; i < cgroup_count; ++i) {
    if (::write(cgroup_fds[i], "0", 1) != 1) {
      reply(socket_fd, LauncherReply::ready, errno);
      ::_exit(1);
    }
  }
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  ignore_every_signal();
  close_all_but(socket_fd);
  reply(socket_fd, LauncherReply::ready, 0);
  for (;;) {
    LauncherRequest request;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kLauncherRunDescriptors)];
    iovec data{&request, sizeof request};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t got = ::recvmsg(socket_fd, &message, MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) ::_exit(0);  // the server is gone
    int fds[kLauncherRunDescriptors];
    int fd_count = 0;
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
         header = CMSG_NXTHDR(&message, header)) {
      if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
      const auto count = static_cast<int>((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
        if (fd_count < kLauncherRunDescriptors) {
          fds[fd_count++] = fd;
        } else {
          ::close(fd);
        }
      }
    }
    if (request.op == LauncherRequest::kill_all) {
      const int result = ::kill(-1, SIGKILL);
      reply(socket_fd, LauncherReply::killed, result == 0 || errno == ESRCH ? 0 : errno);
    } else if (request.op == LauncherRequest::run && got == sizeof request &&
               fd_count == kLauncherRunDescriptors) {
      launch(request, fds);
    }
    for (int i = 0; i < fd_count; ++i) ::close(fds[i]);
  }
}

}  // namespace kg::sandbox
