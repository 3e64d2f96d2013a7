// The daemon launcher with a fake kode-gopherd (a shell script): arguments, detaching, the log,
// and the report when it exits before answering. No real daemon is started here.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "cli_errors.hpp"
#include "daemon_launcher.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using kg::cli::DaemonClient;
using kg::cli::DaemonLaunch;
using kg::cli::DaemonUnavailableError;
using kg::cli::GlobalOptions;
using kg::cli_test::ScratchDir;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the daemon gets --config and --socket only when this invocation has them") {
  GlobalOptions none;
  CHECK(kg::cli::daemon_arguments(none, std::nullopt).empty());
  CHECK(kg::cli::daemon_arguments(none, std::string("/etc/kg.ini")) ==
        std::vector<std::string>{"--config", "/etc/kg.ini"});

  GlobalOptions both;
  both.config_path = "/home/me/kg.ini";
  both.socket_path = "/run/kg/../kg2/d.sock";
  CHECK(kg::cli::daemon_arguments(both, std::string("/etc/ignored.ini")) ==
        std::vector<std::string>{"--config", "/home/me/kg.ini", "--socket", "/run/kg2/d.sock"});

  GlobalOptions relative;
  relative.config_path = "conf/kg.ini";
  CHECK(kg::cli::daemon_arguments(relative, std::nullopt) ==
        std::vector<std::string>{"--config", (fs::current_path() / "conf/kg.ini").string()});
}

TEST_CASE("last_lines_of_file keeps the tail") {
  ScratchDir scratch;
  const fs::path log = scratch.write("log", "1\n2\n3\n4");
  CHECK(kg::cli::last_lines_of_file(log.string(), 2) == "3\n4\n");
  CHECK(kg::cli::last_lines_of_file(log.string(), 10) == "1\n2\n3\n4\n");
  CHECK(kg::cli::last_lines_of_file(log.string(), 10, 4) == "3\n4\n");
  CHECK(kg::cli::last_lines_of_file((scratch.path() / "missing").string(), 3).empty());
}

TEST_CASE("a daemon that exits before answering is reported with the last 20 log lines") {
  ScratchDir scratch;
  // The fake records its arguments, its stdin, whether it leads its own session, and its cwd.
  const fs::path fake = scratch.write("bin/kode-gopherd",
                                      "#!/bin/sh\n"
                                      "for i in $(seq 1 25); do echo \"line $i\"; done\n"
                                      "echo \"args: $*\" >&2\n"
                                      "echo \"stdin: $(readlink /proc/self/fd/0)\"\n"
                                      "echo \"session leader: $(test \"$(cut -d' ' -f6 "
                                      "/proc/$$/stat)\" = $$ && echo yes || echo no)\"\n"
                                      "echo \"cwd: $(pwd)\"\n"
                                      "exit 3\n");
  fs::permissions(fake, fs::perms::owner_all);
  const fs::path state_dir = scratch.path() / "state/kode-gopher";
  const fs::path socket = scratch.path() / "nobody-listens.sock";

  DaemonLaunch launch;
  launch.binary = fake.string();
  launch.arguments = {"--config", "/x.ini", "--socket", socket.string()};
  launch.state_dir = state_dir.string();
  std::ostringstream progress;
  const DaemonClient client(socket.string());
  const std::string log = (state_dir / "daemon.log").string();
  std::string expected_tail;
  for (int i = 10; i <= 25; ++i) expected_tail += "line " + std::to_string(i) + '\n';
  expected_tail += "args: --config /x.ini --socket " + socket.string() +
                   "\nstdin: /dev/null\nsession leader: yes\ncwd: /\n";

  CHECK_THROWS_WITH_AS(kg::cli::start_daemon_and_wait(client, launch, progress),
                       ("kode-gopherd (" + fake.string() +
                        ") exited with status 3 before it answered on " + socket.string() +
                        "; the last lines of " + log + ":\n" + expected_tail)
                           .c_str(),
                       DaemonUnavailableError);
  CHECK(progress.str() == "kode-gopher: starting the daemon (log: " + log + ")\n");
  CHECK(read_file(log).starts_with("line 1\nline 2\n"));

  struct stat info {};
  REQUIRE(::stat(state_dir.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0700);
  REQUIRE(::stat(log.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

TEST_CASE("a daemon binary that cannot be executed leaves its reason in the log") {
  ScratchDir scratch;
  DaemonLaunch launch;
  launch.binary = (scratch.path() / "no-such-daemon").string();
  launch.state_dir = (scratch.path() / "state").string();
  scratch.write("state/daemon.log", "an earlier run's line\n");  // not shown: not this start's
  std::ostringstream progress;
  const DaemonClient client((scratch.path() / "d.sock").string());
  CHECK_THROWS_WITH_AS(kg::cli::start_daemon_and_wait(client, launch, progress),
                       ("kode-gopherd (" + launch.binary +
                        ") exited with status 127 before it answered on " +
                        client.socket_path() + "; the last lines of " + launch.state_dir +
                        "/daemon.log:\nkode-gopher: cannot execute the daemon binary\n")
                           .c_str(),
                       DaemonUnavailableError);
}
