#include "daemon_config_checker.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli_errors.hpp"

namespace kg::cli {
namespace {

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

int run_daemon_config_check(const std::string& daemon_binary, const std::string& file,
                            std::ostream& out) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw DaemonUnavailableError(failure("Cannot make a pipe"));
  std::string flag = "--check-config";
  std::string binary = daemon_binary;
  std::string path = file;
  char* const argv[] = {binary.data(), flag.data(), path.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) throw DaemonUnavailableError(failure("Cannot fork to run " + daemon_binary));
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t count = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (count > 0) {
      out.write(buffer, count);
    } else if (count == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw DaemonUnavailableError("Cannot check the config with " + daemon_binary +
                                 " --check-config: it did not run to completion");
  }
  return WEXITSTATUS(status);
}

}  // namespace kg::cli
