#include "command_launcher.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "launcher_process.hpp"

namespace kg::sandbox {
namespace {

#ifndef P_PIDFD
constexpr idtype_t kPidfdIdType = static_cast<idtype_t>(3);
#else
constexpr idtype_t kPidfdIdType = P_PIDFD;
#endif

std::runtime_error launcher_error(const std::string& what) {
  return std::runtime_error("Cannot run the command: " + what);
}

// Waits up to `timeout` for the socket to be readable; false on timeout.
bool wait_readable(int fd, std::chrono::milliseconds timeout) {
  pollfd entry{fd, POLLIN, 0};
  int ready;
  do {
    ready = ::poll(&entry, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

// Receives one reply; nullopt when the launcher is gone or the reply is malformed.
std::optional<LauncherReply> receive_reply(int fd) {
  LauncherReply reply;
  ssize_t got;
  do {
    got = ::recv(fd, &reply, sizeof reply, 0);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof reply)) return std::nullopt;
  return reply;
}

// The payload of a run request (launcher_process.hpp) in a memfd: pointer slots, then strings.
UniqueFd make_payload(const LaunchOrder& order, LauncherRequest& request) {
  std::string bytes((order.argv->size() + order.environment->size() + 2) * sizeof(char*), '\0');
  for (const auto* strings : {order.argv, order.environment}) {
    for (const auto& text : *strings) bytes.append(text.c_str(), text.size() + 1);
  }
  bytes.append(order.workdir.c_str(), order.workdir.size() + 1);
  if (order.shell_fallback != nullptr) {
    bytes.append(order.shell_fallback->c_str(), order.shell_fallback->size() + 1);
    request.has_shell_fallback = 1;
  }
  UniqueFd fd(::memfd_create("kode-gopher-command", MFD_CLOEXEC));
  if (!fd) throw launcher_error(std::string("cannot create the command's memfd: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw launcher_error(std::string("cannot write the command's memfd: ") + std::strerror(errno));
    }
    written += static_cast<std::size_t>(n);
  }
  request.argv_count = static_cast<std::uint32_t>(order.argv->size());
  request.env_count = static_cast<std::uint32_t>(order.environment->size());
  request.payload_bytes = bytes.size();
  return fd;
}

// Sends one request with its descriptors without blocking; false when the launcher cannot take
// it (gone, or so stuck its queue is full).
bool send_request(int socket_fd, const LauncherRequest& request, const int* fds, int fd_count) {
  iovec data{const_cast<LauncherRequest*>(&request), sizeof request};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kLauncherRunDescriptors)]{};
  if (fd_count > 0) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
    std::memcpy(CMSG_DATA(header), fds, sizeof(int) * fd_count);
  }
  ssize_t sent;
  do {
    sent = ::sendmsg(socket_fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (sent < 0 && errno == EINTR);
  return sent == static_cast<ssize_t>(sizeof request);
}

}  // namespace

CommandLauncher::CommandLauncher(std::vector<int> cgroup_fds) : cgroup_fds_(std::move(cgroup_fds)) {
  start_if_gone();
}

CommandLauncher::~CommandLauncher() { discard(); }

void CommandLauncher::start() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    throw launcher_error(std::string("cannot make the command launcher's socket: ") +
                         std::strerror(errno));
  }
  UniqueFd ours(pair[0]), theirs(pair[1]);
  const pid_t pid = ::fork();
  if (pid < 0) throw launcher_error(std::string("cannot fork the command launcher: ") + std::strerror(errno));
  if (pid == 0) serve_as_command_launcher(theirs.get(), cgroup_fds_.data(), cgroup_fds_.size());
  pid_ = pid;
  pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  socket_ = std::move(ours);
  ready_ = false;
  ++started_;
}

void CommandLauncher::start_if_gone() noexcept {
  if (alive()) return;
  discard();
  try {
    start();
  } catch (const std::exception&) {
    // send() tries again and reports why.
  }
}

bool CommandLauncher::alive() const {
  if (pid_ <= 0 || !socket_) return false;
  // Exited, or stopped (SIGSTOP from a command): either way it will not answer.
  siginfo_t info{};
  const int options = WEXITED | WSTOPPED | WNOHANG | WNOWAIT;
  const int rc = pidfd_ ? ::waitid(kPidfdIdType, static_cast<id_t>(pidfd_.get()), &info, options)
                        : ::waitid(P_PID, static_cast<id_t>(pid_), &info, options);
  return rc == 0 && info.si_pid == 0;
}

std::optional<pid_t> CommandLauncher::pid() const {
  if (!alive()) return std::nullopt;
  return pid_;
}

void CommandLauncher::discard() noexcept {
  if (pid_ > 0) {
    // Through the pidfd: the stray reaper may have reaped it already and its pid be reused.
    if (pidfd_) {
      ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
      siginfo_t info{};
      while (::waitid(kPidfdIdType, static_cast<id_t>(pidfd_.get()), &info, WEXITED) < 0 &&
             errno == EINTR) {
      }
    } else {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  pid_ = -1;
  pidfd_.reset();
  socket_.reset();
  ready_ = false;
}

void CommandLauncher::wait_until_ready() {
  if (ready_) return;
  if (!wait_readable(socket_.get(), kReadyTimeout)) {
    discard();
    throw launcher_error("the command launcher did not join the commands' cgroup within " +
                         std::to_string(kReadyTimeout.count()) + " ms");
  }
  const auto reply = receive_reply(socket_.get());
  if (!reply || reply->kind != LauncherReply::ready) {
    discard();
    throw launcher_error("the command launcher died before joining the commands' cgroup");
  }
  if (reply->error_number != 0) {
    discard();
    throw launcher_error("cannot join the commands' cgroup: " +
                         std::string(std::strerror(reply->error_number)));
  }
  ready_ = true;
}

void CommandLauncher::send(const LaunchOrder& order) {
  LauncherRequest request;
  request.op = LauncherRequest::run;
  request.highest_fd = order.highest_fd;
  if (order.limits->size() > kMaxLauncherLimits) throw launcher_error("too many rlimits");
  request.limit_count = static_cast<std::uint32_t>(order.limits->size());
  for (std::size_t i = 0; i < order.limits->size(); ++i) request.limits[i] = (*order.limits)[i];
  const UniqueFd payload = make_payload(order, request);
  const int fds[kLauncherRunDescriptors] = {payload.get(), order.stdin_fd, order.stdout_fd,
                                            order.stderr_fd, order.status_fd};
  // A second try only when the first launcher turned out dead or stuck at the last moment.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!alive()) {
      discard();
      start();
    }
    wait_until_ready();
    if (send_request(socket_.get(), request, fds, kLauncherRunDescriptors)) return;
    discard();
  }
  throw launcher_error("the command launcher would not take the command");
}

bool CommandLauncher::kill_everything_else() {
  try {
    if (!alive()) {
      discard();
      return false;
    }
    wait_until_ready();
    LauncherRequest request;
    request.op = LauncherRequest::kill_all;
    if (send_request(socket_.get(), request, nullptr, 0) &&
        wait_readable(socket_.get(), kAnswerTimeout)) {
      const auto reply = receive_reply(socket_.get());
      if (reply && reply->kind == LauncherReply::killed && reply->error_number == 0) return true;
    }
  } catch (const std::exception&) {
  }
  discard();
  return false;
}

}  // namespace kg::sandbox
