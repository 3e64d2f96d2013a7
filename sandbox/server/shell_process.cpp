#include "shell_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "command_exec.hpp"
#include "command_launcher.hpp"
#include "plain_exec.hpp"

namespace kg::sandbox {
namespace {

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Pipe make_pipe(const char* purpose) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("Cannot create the ") + purpose +
                             " pipe: " + std::strerror(errno));
  }
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void make_non_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

enum class ReadResult { record, end_of_file, timed_out };

// One StatusRecord; waits at most `timeout` when given.
ReadResult read_record(int fd, StatusRecord& record, std::optional<std::chrono::milliseconds> timeout) {
  auto* bytes = reinterpret_cast<char*>(&record);
  std::size_t got = 0;
  while (got < sizeof record) {
    if (timeout) {
      pollfd entry{fd, POLLIN, 0};
      const int ready = ::poll(&entry, 1, static_cast<int>(timeout->count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return ReadResult::timed_out;
    }
    const ssize_t n = ::read(fd, bytes + got, sizeof record - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadResult::end_of_file;
    got += static_cast<std::size_t>(n);
  }
  return ReadResult::record;
}

// What the status pipe said: the child's pid once it started, and why it could not exec.
struct ChildStatus {
  std::optional<pid_t> pid;
  std::optional<StatusRecord> failure;
};

// Reads the status pipe to its end: until the child has exec'd (end of file) or reported why
// it could not. With a launcher, a child that does not report within kAnswerTimeout means a
// stuck (SIGSTOPped) launcher: it is discarded, and the pipe then ends unless it did start one.
ChildStatus read_child_status(int fd, CommandLauncher* launcher) {
  ChildStatus status;
  bool launcher_discarded = false;
  for (;;) {
    std::optional<std::chrono::milliseconds> timeout;
    if (launcher != nullptr && !status.pid) timeout = CommandLauncher::kAnswerTimeout;
    StatusRecord record;
    const ReadResult result = read_record(fd, record, timeout);
    if (result == ReadResult::end_of_file) return status;
    if (result == ReadResult::timed_out) {
      if (launcher_discarded) {
        throw std::runtime_error("Cannot run the command: the command launcher did not answer");
      }
      launcher->discard();
      launcher_discarded = true;
      continue;
    }
    if (record.kind == StatusRecord::started) {
      status.pid = static_cast<pid_t>(record.pid_or_stage);
    } else {
      status.failure = record;
      return status;
    }
  }
}

void reap(pid_t pid) {
  int ignored_status;
  while (::waitpid(pid, &ignored_status, 0) < 0 && errno == EINTR) {
  }
}

// A fork of the server that becomes the command (no commands' cgroup to start it in).
pid_t fork_command(const std::vector<std::string>& argv_strings,
                  const std::vector<std::string>& environment, const std::string& workdir,
                  const std::string* shell_fallback,
                  const std::vector<PreparedLimit>& limits, int highest_fd, int stdin_fd,
                  int stdout_fd, int stderr_fd, int status_fd) {
  // Everything the child needs is prepared here, before fork.
  std::vector<std::string> argv_copy = argv_strings, environment_copy = environment;
  std::vector<char*> argv, envp;
  for (auto& entry : argv_copy) argv.push_back(entry.data());
  argv.push_back(nullptr);
  envp.reserve(environment_copy.size() + 1);
  for (auto& entry : environment_copy) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const CommandExecPlan plan{workdir.c_str(), argv.data(),  envp.data(), stdin_fd,
                             stdout_fd,       stderr_fd,    status_fd,   highest_fd,
                             limits.data(),   limits.size(),
                             shell_fallback == nullptr ? nullptr : shell_fallback->c_str()};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("Cannot fork: ") + std::strerror(errno));
  if (pid == 0) become_command(plan);
  return pid;
}

}  // namespace

ShellProcess start_shell_process(const std::string& command,
                                 const std::vector<std::string>& environment,
                                 const std::filesystem::path& workdir, const ChildLimits& limits,
                                 CommandLauncher* launcher, int stdin_fd) {
  // A plain exec skips the shell's own start (plain_exec.hpp); the shell takes over if the
  // program cannot be executed.
  const std::optional<std::vector<std::string>> plain = plain_exec_argv(command);
  const std::vector<std::string> argv =
      plain ? *plain : std::vector<std::string>{"/bin/sh", "-c", command};
  const std::vector<std::string> exec_environment =
      plain ? shell_exec_environment(environment, workdir) : environment;
  const std::string* shell_fallback = plain ? &command : nullptr;
  const std::string workdir_text = workdir.string();
  const int highest_fd = highest_possible_fd();
  const std::vector<PreparedLimit> prepared_limits =
      prepare_limits(limits.cpu_seconds, limits.file_size_bytes, limits.open_files);
  // A second try only when a launcher died after taking the command but before starting it.
  for (int attempt = 0;; ++attempt) {
    UniqueFd dev_null(stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (stdin_fd < 0 && !dev_null) {
      throw std::runtime_error(std::string("Cannot open /dev/null: ") + std::strerror(errno));
    }
    const int child_stdin = stdin_fd >= 0 ? stdin_fd : dev_null.get();
    Pipe out = make_pipe("stdout");
    Pipe err = make_pipe("stderr");
    Pipe status = make_pipe("exec status");
    std::optional<pid_t> forked;
    if (launcher != nullptr) {
      launcher->send(LaunchOrder{&argv, &exec_environment, workdir_text, shell_fallback,
                                 &prepared_limits, highest_fd,
                                 child_stdin, out.write_end.get(), err.write_end.get(),
                                 status.write_end.get()});
    } else {
      forked = fork_command(argv, exec_environment, workdir_text, shell_fallback, prepared_limits,
                            highest_fd, child_stdin,
                   out.write_end.get(), err.write_end.get(), status.write_end.get());
    }
    status.write_end.reset();
    out.write_end.reset();
    err.write_end.reset();
    // Blocks until the child has exec'd (the pipe closes) or reported why it could not.
    const ChildStatus child = read_child_status(status.read_end.get(), launcher);
    if (child.failure) {
      if (child.pid) reap(*child.pid);
      throw std::runtime_error(
          "Cannot run the command: " +
          describe_child_failure(child.failure->pid_or_stage, child.failure->error_number, workdir));
    }
    if (!child.pid) {
      if (forked) reap(*forked);
      if (launcher != nullptr && attempt == 0) {
        launcher->discard();
        continue;
      }
      throw std::runtime_error("Cannot run the command: it ended before it could start");
    }
    make_non_blocking(out.read_end.get());
    make_non_blocking(err.read_end.get());
    return ShellProcess{*child.pid, std::move(out.read_end), std::move(err.read_end)};
  }
}

}  // namespace kg::sandbox
