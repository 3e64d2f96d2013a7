#include "daemon_launcher.hpp"

#include "cli_errors.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kg::cli {
namespace {

namespace fs = std::filesystem;

std::string system_error_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// mkdir -p where every directory it creates is private (mode 0700).
void create_private_directories(const fs::path& directory) {
  fs::path partial;
  for (const fs::path& part : directory) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      throw DaemonUnavailableError(system_error_text("Cannot create the daemon's state directory " +
                                                     partial.string()) +
                                   ": create it or set [daemon] state_dir in the config");
    }
  }
}

// A descriptor that closes itself.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

// fork + setsid + exec; between fork and exec the child only calls async-signal-safe functions.
pid_t spawn_detached(const DaemonLaunch& launch, int stdin_fd, int log_fd) {
  std::vector<std::string> argv_storage{launch.binary};
  argv_storage.insert(argv_storage.end(), launch.arguments.begin(), launch.arguments.end());
  std::vector<char*> argv;
  for (std::string& argument : argv_storage) argv.push_back(argument.data());
  argv.push_back(nullptr);
  static constexpr char kExecFailed[] = "kode-gopher: cannot execute the daemon binary\n";

  const pid_t pid = ::fork();
  if (pid < 0) throw DaemonUnavailableError(system_error_text("Cannot fork to start the daemon"));
  if (pid == 0) {
    ::setsid();
    if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(log_fd, STDOUT_FILENO) < 0 ||
        ::dup2(log_fd, STDERR_FILENO) < 0 || ::chdir("/") != 0) {
      ::_exit(127);
    }
    ::execv(argv[0], argv.data());
    [[maybe_unused]] const auto written =
        ::write(STDERR_FILENO, kExecFailed, sizeof kExecFailed - 1);
    ::_exit(127);
  }
  return pid;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

bool answers_health(const DaemonClient& client) {
  try {
    client.get("/v1/health", std::chrono::seconds(2));
    return true;
  } catch (const kg::net::HttpTransportError&) {
    return false;
  } catch (const DaemonApiError&) {
    return true;  // it answers; the command's own request will show what is wrong
  }
}

}  // namespace

std::vector<std::string> daemon_arguments(const GlobalOptions& globals,
                                          const std::optional<std::string>& environment_config) {
  std::vector<std::string> arguments;
  std::string config = globals.config_path;
  if (config.empty() && environment_config) config = *environment_config;
  if (!config.empty()) {
    arguments.push_back("--config");
    arguments.push_back(fs::absolute(config).lexically_normal().string());
  }
  if (!globals.socket_path.empty()) {
    arguments.push_back("--socket");
    arguments.push_back(fs::absolute(globals.socket_path).lexically_normal().string());
  }
  return arguments;
}

std::vector<std::string> daemon_arguments(const GlobalOptions& globals) {
  const char* environment_config = std::getenv("KODE_GOPHER_CONFIG");
  return daemon_arguments(globals, environment_config != nullptr && *environment_config != '\0'
                                       ? std::optional<std::string>(environment_config)
                                       : std::nullopt);
}

void start_daemon_and_wait(const DaemonClient& client, const DaemonLaunch& launch,
                           std::ostream& progress) {
  if (launch.state_dir.empty()) {
    throw DaemonUnavailableError(
        "The config names no state directory for the daemon's log: set [daemon] state_dir");
  }
  create_private_directories(launch.state_dir);
  const std::string log_path = (fs::path(launch.state_dir) / "daemon.log").string();
  const OwnedFd log_fd(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (log_fd.get() < 0) {
    throw DaemonUnavailableError(system_error_text("Cannot open the daemon log " + log_path) +
                                 ": check the permissions of " + launch.state_dir);
  }
  struct stat log_info {};
  const std::uint64_t log_start =
      ::fstat(log_fd.get(), &log_info) == 0 ? static_cast<std::uint64_t>(log_info.st_size) : 0;
  const OwnedFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_fd.get() < 0) throw DaemonUnavailableError(system_error_text("Cannot open /dev/null"));

  progress << "kode-gopher: starting the daemon (log: " << log_path << ")" << std::endl;
  const pid_t pid = spawn_detached(launch, null_fd.get(), log_fd.get());

  const auto give_up_at = std::chrono::steady_clock::now() + launch.deadline;
  while (true) {
    if (answers_health(client)) return;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      throw DaemonUnavailableError("kode-gopherd (" + launch.binary + ") " +
                                   describe_wait_status(status) + " before it answered on " +
                                   client.socket_path() + "; the last lines of " + log_path +
                                   ":\n" + last_lines_of_file(log_path, 20, log_start));
    }
    if (std::chrono::steady_clock::now() >= give_up_at) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(launch.deadline);
      throw DaemonUnavailableError("kode-gopherd (pid " + std::to_string(pid) +
                                   ") did not answer on " + client.socket_path() + " within " +
                                   std::to_string(seconds.count()) + " s: see " + log_path);
    }
    std::this_thread::sleep_for(launch.poll_interval);
  }
}

std::string last_lines_of_file(const std::string& path, std::size_t count,
                               std::uint64_t from_offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(from_offset));
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(std::move(line));
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const std::string& kept : lines) out += kept + '\n';
  return out;
}

}  // namespace kg::cli
