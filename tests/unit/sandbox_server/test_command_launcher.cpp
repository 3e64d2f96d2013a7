// The command launcher (command_launcher.hpp): commands born in the commands' cgroup without a
// migration each, and what happens when the launcher is killed, stopped, signalled or cannot
// join. A regular file stands in for cgroup.procs where only the joins are counted (each join
// writes "0"); a real cgroup, where this user may make one, shows where the processes are.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "command_launcher.hpp"
#include "command_runner.hpp"
#include "process_watch.hpp"
#include "scratch_directory.hpp"
#include "unique_fd.hpp"

using kg::sandbox::CommandLauncher;
using kg::sandbox::CommandRequest;
using kg::sandbox::CommandResult;
using kg::sandbox::run_command;
using kg::sandbox::UniqueFd;
using kg::sandbox::testing::read_pid_file;
using kg::sandbox::testing::ScratchDirectory;
using kg::sandbox::testing::wait_until_gone;

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A file standing in for cgroup.procs: it reads back one "0" per join.
struct JoinCounter {
  explicit JoinCounter(const std::filesystem::path& dir)
      : path(dir / "cgroup.procs"), fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) {
    REQUIRE(fd);
  }
  std::size_t joins() const { return read_text(path).size(); }
  std::filesystem::path path;
  UniqueFd fd;
};

CommandRequest command_with(CommandLauncher& launcher, const std::filesystem::path& workdir,
                            std::string command) {
  CommandRequest request;
  request.command = std::move(command);
  request.workdir = workdir;
  request.timeout = std::chrono::milliseconds(30'000);
  request.launcher = &launcher;
  return request;
}

std::string ok_output(CommandLauncher& launcher, const std::filesystem::path& workdir,
                      const std::string& command) {
  const CommandResult result = run_command(command_with(launcher, workdir, command));
  CHECK(result.exit_code == 0);
  return result.stdout_text;
}

// A process's parent pid, from /proc/<pid>/stat.
pid_t parent_of(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  char state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

// A fresh cgroup below this process's own (v1 pids hierarchy, or v2); nullopt when this user
// may not make one. Removed (empty by then) at scope exit.
class RealCgroup {
 public:
  static std::optional<std::filesystem::path> make() {
    std::ifstream cgroups("/proc/self/cgroup");
    std::string line, own_v1, own_v2;
    while (std::getline(cgroups, line)) {
      const auto first = line.find(':'), second = line.find(':', first + 1);
      const std::string controllers = line.substr(first + 1, second - first - 1);
      const std::string path = line.substr(second + 1);
      if (controllers == "pids") own_v1 = path;
      if (controllers.empty()) own_v2 = path;
    }
    std::ifstream mounts("/proc/self/mountinfo");
    while (std::getline(mounts, line)) {
      std::istringstream fields(line);
      std::string id, parent, numbers, root, point, word;
      fields >> id >> parent >> numbers >> root >> point;
      while (fields >> word && word != "-") {
      }
      std::string type, source, options;
      fields >> type >> source >> options;
      std::string own;
      if (type == "cgroup" && ("," + options + ",").find(",pids,") != std::string::npos) own = own_v1;
      if (type == "cgroup2" && own_v1.empty()) own = own_v2;
      if (own.empty() || own.rfind(root, 0) != 0) continue;
      std::string relative = own.substr(root.size());
      while (!relative.empty() && relative.front() == '/') relative.erase(0, 1);
      const std::filesystem::path dir = std::filesystem::path(point) / relative /
                                        ("kg-test-launcher-" + std::to_string(::getpid()));
      if (::mkdir(dir.c_str(), 0755) == 0) return dir;
    }
    return std::nullopt;
  }
};

}  // namespace

TEST_CASE("a launcher joins the cgroup once and starts every command as the server's child") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  for (int i = 0; i < 3; ++i) {
    CHECK(ok_output(launcher, scratch.path(), "cut -d' ' -f4 /proc/$$/stat") ==
          std::to_string(::getpid()) + "\n");
  }
  CHECK(cgroup.joins() == 1);
  CHECK(launcher.started() == 1);
  REQUIRE(launcher.pid());
  CHECK(parent_of(*launcher.pid()) == ::getpid());
}

TEST_CASE("a launched command gets the same environment, stdin, rlimits and privileges") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  ::setenv("KG_LAUNCHER_TEST_KEPT", "kept", 1);
  CommandRequest request = command_with(
      launcher, scratch.path(),
      "pwd; cat; echo \"$KG_LAUNCHER_TEST_KEPT $KG_LAUNCHER_TEST_NEW\"; ulimit -n; ulimit -f; "
      "grep -E '^NoNewPrivs' /proc/self/status; cat /proc/self/oom_score_adj; "
      "grep -E '^(SigBlk|SigIgn)' /proc/self/status; ls /proc/self/fd | wc -l");
  request.env = {{"KG_LAUNCHER_TEST_NEW", "added value"}};
  request.limits.open_files = 64;
  request.limits.file_size_bytes = 8192;
  const CommandResult result = run_command(request);
  CHECK(result.exit_code == 0);
  // fds: 0-2 and the one ls reads /proc/self/fd through: nothing of the server or the launcher.
  CHECK(result.stdout_text == scratch.path().string() +
                                  "\nkept added value\n64\n16\nNoNewPrivs:\t1\n1000\n"
                                  "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n4\n");
}

TEST_CASE("a launched command's group is killed at the deadline and its zombie reaped") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  CommandRequest request =
      command_with(launcher, scratch.path(), "sleep 100 & echo $! > child.pid; wait");
  request.timeout = std::chrono::milliseconds(300);
  const CommandResult result = run_command(request);
  CHECK(result.timed_out);
  CHECK(result.signal == SIGKILL);
  CHECK(wait_until_gone(read_pid_file(scratch.path() / "child.pid")));
  CHECK(ok_output(launcher, scratch.path(), "echo next") == "next\n");
}

TEST_CASE("a launcher killed between commands is replaced, and the next command runs") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  CHECK(ok_output(launcher, scratch.path(), "echo first") == "first\n");
  REQUIRE(launcher.pid());
  ::kill(*launcher.pid(), SIGKILL);
  for (int i = 0; i < 200 && launcher.pid(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(ok_output(launcher, scratch.path(), "echo second") == "second\n");
  CHECK(launcher.started() == 2);
  CHECK(cgroup.joins() == 2);
}

TEST_CASE("a command that kills the launcher does not stop the next one") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  REQUIRE(ok_output(launcher, scratch.path(), "true").empty());
  const pid_t first = *launcher.pid();
  CommandRequest killer = command_with(launcher, scratch.path(), "kill -9 \"$LAUNCHER\"; echo done");
  killer.env = {{"LAUNCHER", std::to_string(first)}};
  CHECK(run_command(killer).stdout_text == "done\n");
  CHECK(ok_output(launcher, scratch.path(), "echo still") == "still\n");
  REQUIRE(launcher.pid());
  CHECK(*launcher.pid() != first);
  CHECK(cgroup.joins() == 2);
}

TEST_CASE("a stopped launcher is replaced within the answer timeout") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  REQUIRE(ok_output(launcher, scratch.path(), "true").empty());
  ::kill(*launcher.pid(), SIGSTOP);
  const auto started = std::chrono::steady_clock::now();
  CHECK(ok_output(launcher, scratch.path(), "echo ran") == "ran\n");
  CHECK(std::chrono::steady_clock::now() - started < CommandLauncher::kAnswerTimeout * 2);
  CHECK(launcher.started() == 2);
}

TEST_CASE("the launcher shrugs off every catchable signal") {
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  REQUIRE(ok_output(launcher, scratch.path(), "true").empty());
  const pid_t pid = *launcher.pid();
  for (const int signal_number : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGPIPE, SIGSEGV}) {
    ::kill(pid, signal_number);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(ok_output(launcher, scratch.path(), "echo alive") == "alive\n");
  CHECK(launcher.pid() == pid);
  CHECK(launcher.started() == 1);
}

TEST_CASE("a launcher that cannot join the cgroup runs nothing and says why") {
  ScratchDirectory scratch;
  const UniqueFd read_only(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CommandLauncher launcher({read_only.get()});
  CHECK_THROWS_WITH_AS(run_command(command_with(launcher, scratch.path(), "touch ran")),
                       "Cannot run the command: cannot join the commands' cgroup: Bad file descriptor",
                       std::runtime_error);
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "ran"));
  // And again on the next command: never a command outside the cgroup.
  CHECK_THROWS(run_command(command_with(launcher, scratch.path(), "touch ran")));
  CHECK_FALSE(std::filesystem::exists(scratch.path() / "ran"));
}

TEST_CASE("the launcher holds none of the server's descriptors") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);  // not close-on-exec, like the server's sockets
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  ScratchDirectory scratch;
  JoinCounter cgroup(scratch.path());
  CommandLauncher launcher({cgroup.fd.get()});
  REQUIRE(ok_output(launcher, scratch.path(), "true").empty());  // ready: it has closed them
  write_end.reset();
  char byte;
  CHECK(::read(read_end.get(), &byte, 1) == 0);  // end of file: no other writer is left
}

TEST_CASE("with a real cgroup: a command and its descendants are inside, the server is not") {
  const auto dir = RealCgroup::make();
  if (!dir) {
    MESSAGE("cannot make a cgroup here (needs root or a delegated cgroup v2 subtree): not run");
    return;
  }
  const std::string own = read_text("/proc/self/cgroup");
  {
    ScratchDirectory scratch;
    const UniqueFd procs(::open((*dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
    REQUIRE(procs);
    CommandLauncher launcher({procs.get()});
    const std::string name = dir->filename().string();
    const std::string out = ok_output(
        launcher, scratch.path(),
        "grep -c " + name + " /proc/self/cgroup; sh -c 'grep -c " + name +
            " /proc/self/cgroup' & wait; cat /proc/" + std::to_string(::getpid()) + "/cgroup | grep -c " +
            name + " || true");
    CHECK(out == "1\n1\n0\n");
    CHECK(read_text("/proc/self/cgroup") == own);
    const std::string members = read_text(*dir / "cgroup.procs");
    CHECK(members == std::to_string(*launcher.pid()) + "\n");
  }
  for (int i = 0; i < 100 && ::rmdir(dir->c_str()) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK_FALSE(std::filesystem::exists(*dir));
}
