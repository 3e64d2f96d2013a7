#include "prestarted_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::sandbox {
namespace {

#ifndef P_PIDFD
constexpr idtype_t kPidfdIdType = static_cast<idtype_t>(3);
#else
constexpr idtype_t kPidfdIdType = P_PIDFD;
#endif

// Writes all of `text` to a blocking pipe; false when the reader is gone.
bool write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

PrestartShape prestart_shape_of(const CommandRequest& request) {
  return PrestartShape{request.command, request.workdir, request.limits};
}

std::string call_message(const std::vector<std::string>& environment,
                         const std::vector<std::string>& arguments) {
  std::string message;
  for (const auto& entry : environment) message.append(entry.c_str(), entry.size() + 1);
  message.push_back('\0');
  for (const auto& argument : arguments) message.append(argument.c_str(), argument.size() + 1);
  return message;
}

PrestartedCommand::PrestartedCommand(const PrestartShape& shape, CommandLauncher* launcher)
    : shape_(shape) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("Cannot create a prestarted command's stdin pipe: ") +
                             std::strerror(errno));
  }
  UniqueFd read_end(fds[0]);
  stdin_pipe_.reset(fds[1]);
  const ChildLimits limits{shape.limits.cpu_seconds, shape.limits.file_size_bytes,
                           shape.limits.open_files};
  process_ = start_shell_process(shape.command, overlay_environment({}), shape.workdir, limits,
                                 launcher, read_end.get());
  pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, process_.pid, 0)));
}

PrestartedCommand::~PrestartedCommand() {
  if (!taken_) kill_and_reap();
}

bool PrestartedCommand::waiting() const {
  if (taken_ || process_.pid <= 0) return false;
  siginfo_t info{};
  const int rc =
      ::waitid(P_PID, static_cast<id_t>(process_.pid), &info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT);
  return rc == 0 && info.si_pid == 0;
}

ShellProcess PrestartedCommand::take(const std::vector<std::string>& environment,
                                     const std::vector<std::string>& arguments) {
  // A process that cannot read its call has ended or closed stdin (a shell that could not
  // start the runner, say): it is supervised all the same, so its own exit code and output say
  // what happened, as for any command.
  (void)write_all(stdin_pipe_.get(), call_message(environment, arguments));
  stdin_pipe_.reset();
  taken_ = true;
  return std::move(process_);
}

void PrestartedCommand::kill_now() noexcept {
  stdin_pipe_.reset();
  if (process_.pid <= 0 || killed_) return;
  // Unreaped until the destructor (nothing else reaps it before the next command ends), so
  // its pid, which is its group's id, is still its own.
  ::kill(-process_.pid, SIGKILL);
  ::kill(process_.pid, SIGKILL);
  killed_ = true;
}

void PrestartedCommand::kill_and_reap() noexcept {
  kill_now();
  if (process_.pid <= 0) return;
  if (pidfd_) {
    siginfo_t info{};
    // ECHILD: the stray reaper (pid 1's waitpid) took it already.
    while (::waitid(kPidfdIdType, static_cast<id_t>(pidfd_.get()), &info, WEXITED) < 0 &&
           errno == EINTR) {
    }
  } else {
    int status;
    while (::waitpid(process_.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  process_.pid = -1;
}

}  // namespace kg::sandbox
