#include <doctest/doctest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "command_runner.hpp"
#include "process_watch.hpp"
#include "scratch_directory.hpp"
#include "stray_process_reaper.hpp"
#include "unique_fd.hpp"

using kg::sandbox::CommandRequest;
using kg::sandbox::CommandResult;
using kg::sandbox::run_command;
using kg::sandbox::testing::read_pid_file;
using kg::sandbox::testing::ScratchDirectory;
using kg::sandbox::testing::wait_until_gone;

namespace {

CommandRequest command_in(const std::filesystem::path& workdir, std::string command) {
  CommandRequest request;
  request.command = std::move(command);
  request.workdir = workdir;
  request.timeout = std::chrono::milliseconds(30'000);
  return request;
}

}  // namespace

TEST_CASE("run_command captures stdout, stderr and the exit code") {
  ScratchDirectory scratch;
  const CommandResult result =
      run_command(command_in(scratch.path(), "echo out; echo err >&2; exit 7"));
  CHECK(result.stdout_text == "out\n");
  CHECK(result.stderr_text == "err\n");
  CHECK(result.exit_code == 7);
  CHECK(result.signal == 0);
  CHECK_FALSE(result.timed_out);
  CHECK_FALSE(result.cancelled);
  CHECK_FALSE(result.stdout_truncated);
  CHECK_FALSE(result.stderr_truncated);
}

TEST_CASE("run_command runs in the workdir with /dev/null as stdin and the overlaid environment") {
  ScratchDirectory scratch;
  ::setenv("KG_RUNNER_TEST_KEPT", "kept", 1);
  ::setenv("KG_RUNNER_TEST_REPLACED", "old", 1);
  CommandRequest request = command_in(
      scratch.path(),
      "pwd; cat; echo \"$KG_RUNNER_TEST_KEPT $KG_RUNNER_TEST_REPLACED $KG_RUNNER_TEST_NEW\"");
  request.env = {{"KG_RUNNER_TEST_REPLACED", "new"}, {"KG_RUNNER_TEST_NEW", "added value"}};
  const CommandResult result = run_command(request);
  CHECK(result.stdout_text == scratch.path().string() + "\nkept new added value\n");
  CHECK(result.exit_code == 0);
}

TEST_CASE("overlay_environment replaces a variable instead of adding it twice") {
  ::setenv("KG_OVERLAY_TEST", "old", 1);
  const auto environment = kg::sandbox::overlay_environment({{"KG_OVERLAY_TEST", "new"}});
  CHECK(std::count(environment.begin(), environment.end(), "KG_OVERLAY_TEST=new") == 1);
  CHECK(std::count(environment.begin(), environment.end(), "KG_OVERLAY_TEST=old") == 0);
}

TEST_CASE("run_command caps each stream: head and the end of what was printed, with the count") {
  ScratchDirectory scratch;
  CommandRequest request = command_in(
      scratch.path(), "printf 0123456789ABCDEFGHIJ; head -c 3000000 /dev/zero >&2; printf END >&2");
  request.output_limit_bytes = 12;  // a 9-byte head and a 3-byte tail
  const CommandResult result = run_command(request);
  CHECK(result.stdout_text == "012345678\n... [8 bytes discarded] ...\nHIJ");
  CHECK(result.stderr_text == std::string(9, '\0') + "\n... [2999991 bytes discarded] ...\nEND");
  CHECK(result.stdout_truncated);
  CHECK(result.stderr_truncated);
  CHECK(result.stdout_discarded_bytes == 8);
  CHECK(result.stderr_discarded_bytes == 2999991);
  CHECK(result.exit_code == 0);

  request.command = "printf 0123456789AB";  // exactly the limit: nothing discarded
  const CommandResult fits = run_command(request);
  CHECK(fits.stdout_text == "0123456789AB");
  CHECK_FALSE(fits.stdout_truncated);
  CHECK(fits.stdout_discarded_bytes == 0);
}

TEST_CASE("run_command reports a signal death as 128 + signal") {
  ScratchDirectory scratch;
  const CommandResult result = run_command(command_in(scratch.path(), "echo before; kill -9 $$"));
  CHECK(result.stdout_text == "before\n");
  CHECK(result.exit_code == 128 + 9);
  CHECK(result.signal == 9);
  CHECK_FALSE(result.timed_out);
}

TEST_CASE("run_command kills the whole process group at the deadline") {
  ScratchDirectory scratch;
  CommandRequest request =
      command_in(scratch.path(), "sleep 100 & echo $! > child.pid; echo started; sleep 100");
  request.timeout = std::chrono::milliseconds(300);
  const CommandResult result = run_command(request);
  CHECK(result.timed_out);
  CHECK(result.exit_code == 128 + 9);
  CHECK(result.signal == 9);
  CHECK(result.stdout_text == "started\n");
  const pid_t grandchild = read_pid_file(scratch.path() / "child.pid");
  REQUIRE(grandchild > 0);
  CHECK(wait_until_gone(grandchild));
}

TEST_CASE("run_command returns when the shell exits even if a background child holds the pipes") {
  ScratchDirectory scratch;
  const CommandResult result =
      run_command(command_in(scratch.path(), "sleep 100 & echo $! > child.pid; echo hi"));
  CHECK(result.stdout_text == "hi\n");
  CHECK(result.exit_code == 0);
  CHECK_FALSE(result.timed_out);
  const pid_t background = read_pid_file(scratch.path() / "child.pid");
  REQUIRE(background > 0);
  CHECK(wait_until_gone(background));
}

TEST_CASE("run_command kills the command when the client hangs up") {
  ScratchDirectory scratch;
  int sockets[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) == 0);
  kg::sandbox::UniqueFd server_side(sockets[0]);
  ::close(sockets[1]);  // the client is already gone
  CommandRequest request = command_in(scratch.path(), "sleep 100");
  request.cancel_watch_fd = server_side.get();
  const CommandResult result = run_command(request);
  CHECK(result.cancelled);
  CHECK_FALSE(result.timed_out);
  CHECK(result.exit_code == 128 + 9);
}

TEST_CASE("run_command ignores data from a client that is still connected") {
  ScratchDirectory scratch;
  int sockets[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) == 0);
  kg::sandbox::UniqueFd server_side(sockets[0]), client_side(sockets[1]);
  REQUIRE(::write(client_side.get(), "GET / HTTP/1.1\r\n", 16) == 16);  // a pipelined request
  CommandRequest request = command_in(scratch.path(), "sleep 0.2; echo done");
  request.cancel_watch_fd = server_side.get();
  const CommandResult result = run_command(request);
  CHECK_FALSE(result.cancelled);
  CHECK(result.stdout_text == "done\n");
  CHECK(result.exit_code == 0);
}

TEST_CASE("run_command throws when the workdir is missing") {
  ScratchDirectory scratch;
  const auto missing = scratch.path() / "missing";
  CHECK_THROWS_WITH_AS(run_command(command_in(missing, "true")),
                       ("Cannot run the command: cannot enter the workdir " + missing.string() +
                        ": No such file or directory")
                           .c_str(),
                       std::runtime_error);
}

TEST_CASE("find_stray_processes lists a child but never pid 1, the caller or its ancestors") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const auto strays = kg::sandbox::find_stray_processes(::getpid());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const auto listed = [&](pid_t pid) {
    return std::find(strays.begin(), strays.end(), pid) != strays.end();
  };
  CHECK(listed(child));
  CHECK_FALSE(listed(::getpid()));
  CHECK_FALSE(listed(::getppid()));
  CHECK_FALSE(listed(1));
}

TEST_CASE("run_command applies the per-command rlimits and cannot gain privileges") {
  ScratchDirectory scratch;
  CommandRequest request = command_in(
      scratch.path(),
      "ulimit -n; ulimit -f; grep -E '^NoNewPrivs' /proc/self/status; cat /proc/self/oom_score_adj");
  request.limits.open_files = 64;
  request.limits.file_size_bytes = 8192;  // dash's ulimit -f counts 512-byte blocks
  const CommandResult result = run_command(request);
  CHECK(result.exit_code == 0);
  CHECK(result.stdout_text == "64\n16\nNoNewPrivs:\t1\n1000\n");
}

TEST_CASE("a write past the file size limit fails; the limit is per file") {
  ScratchDirectory scratch;
  CommandRequest request = command_in(
      scratch.path(), "trap '' XFSZ; head -c 4096 /dev/zero > big || echo refused; "
                      "head -c 1000 /dev/zero > small && echo small ok");
  request.limits.file_size_bytes = 2048;
  const CommandResult result = run_command(request);
  CHECK(result.stdout_text == "refused\nsmall ok\n");
  CHECK(std::filesystem::file_size(scratch.path() / "big") == 2048);
}

TEST_CASE("a CPU spin is stopped at the CPU time limit and reported as such") {
  ScratchDirectory scratch;
  CommandRequest request = command_in(scratch.path(), "while :; do :; done");
  request.limits.cpu_seconds = 1;
  const CommandResult result = run_command(request);
  CHECK(result.cpu_limit_exceeded);
  CHECK((result.signal == SIGXCPU || result.signal == SIGKILL));
  CHECK_FALSE(result.timed_out);
  CHECK(result.duration_ms < 10'000);
}

TEST_CASE("a command killed for another reason is not a CPU limit") {
  ScratchDirectory scratch;
  CommandRequest request = command_in(scratch.path(), "kill -9 $$");
  request.limits.cpu_seconds = 5;
  const CommandResult result = run_command(request);
  CHECK(result.signal == SIGKILL);
  CHECK_FALSE(result.cpu_limit_exceeded);
}
