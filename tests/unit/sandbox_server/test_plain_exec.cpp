// A plain `exec /program word ...` runs without the shell (plain_exec.hpp): which commands count
// as plain, and that the program sees what `sh -c` would have given it (argv, environment,
// PWD) and that a program that cannot be executed ends as it did under the shell, both when
// the server forks the command and when the command launcher starts it.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "command_launcher.hpp"
#include "command_runner.hpp"
#include "plain_exec.hpp"
#include "scratch_directory.hpp"
#include "unique_fd.hpp"

using kg::sandbox::CommandLauncher;
using kg::sandbox::CommandRequest;
using kg::sandbox::CommandResult;
using kg::sandbox::plain_exec_argv;
using kg::sandbox::run_command;
using kg::sandbox::shell_exec_environment;
using kg::sandbox::UniqueFd;
using kg::sandbox::testing::ScratchDirectory;
using Words = std::vector<std::string>;

namespace {

// Runs `command` in `workdir`, forked by the server or, with `launched`, through a launcher
// whose cgroup.procs is a regular file.
struct Runner {
  Runner(const std::filesystem::path& workdir, bool launched) : workdir_(workdir) {
    if (!launched) return;
    procs_ = UniqueFd(::open((workdir / ".procs").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    REQUIRE(procs_);
    launcher_ = std::make_unique<CommandLauncher>(std::vector<int>{procs_.get()});
  }
  CommandResult run(std::string command,
                    std::vector<std::pair<std::string, std::string>> env = {}) {
    CommandRequest request;
    request.command = std::move(command);
    request.env = std::move(env);
    request.workdir = workdir_;
    request.timeout = std::chrono::milliseconds(30'000);
    request.launcher = launcher_.get();
    return run_command(request);
  }

 private:
  std::filesystem::path workdir_;
  UniqueFd procs_;
  std::unique_ptr<CommandLauncher> launcher_;
};

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

void write_file(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

}  // namespace

TEST_CASE("plain_exec_argv takes `exec /program` and words the shell passes unchanged") {
  CHECK(plain_exec_argv("exec /usr/bin/env") == Words{"/usr/bin/env"});
  CHECK(plain_exec_argv("exec /opt/fb build -data /a/b.data -go go1.26.8 -memory-limit 1073741824 "
                        "-o /home/gopher/.kode-gopher/prog .") ==
        Words{"/opt/fb", "build", "-data", "/a/b.data", "-go", "go1.26.8", "-memory-limit",
              "1073741824", "-o", "/home/gopher/.kode-gopher/prog", "."});
  CHECK(plain_exec_argv("  exec   /bin/echo  a=b,c:d+e@f%g_h  ") ==
        Words{"/bin/echo", "a=b,c:d+e@f%g_h"});
  // Anything the shell would read differently, or a program found through PATH: the shell runs it.
  for (const char* command :
       {"/bin/true", "exec", "exec bin/true", "exec true", "exec -- /bin/true", "echo /bin/true",
        "exec /bin/echo $HOME", "exec /bin/echo 'a'", "exec /bin/echo \"a\"", "exec /bin/echo a\\ b",
        "exec /bin/echo a; rm -rf x", "exec /bin/echo a && x", "exec /bin/echo a | x",
        "exec /bin/echo a > f", "exec /bin/echo ~", "exec /bin/echo *", "exec /bin/echo a?",
        "exec /bin/echo [a]", "exec /bin/echo {a,b}", "exec /bin/echo #c", "exec /bin/echo a\tb",
        "exec /bin/echo a\nb", "exec /bin/echo `id`", "exec /bin/echo (a)", "exec /bin/echo !x",
        "EXEC /bin/true", "exec\t/bin/true"}) {
    CAPTURE(command);
    CHECK_FALSE(plain_exec_argv(command));
  }
}

TEST_CASE("shell_exec_environment is what dash exports: shell names, one value each, PWD") {
  ScratchDirectory scratch;
  const std::filesystem::path link = scratch.path() / "link";
  std::filesystem::create_directory_symlink(scratch.path(), link);
  const auto env = shell_exec_environment(
      {"A=1", "BAD-NAME=2", "1X=3", "B C=4", "A=5", "_ok9=6", "EMPTY=", "PWD=/nowhere"},
      scratch.path());
  CHECK(env == Words{"A=5", "_ok9=6", "EMPTY=", "PWD=" + scratch.path().string()});
  // A PWD that names the workdir stays as given; a relative one does not count.
  CHECK(shell_exec_environment({"PWD=" + link.string()}, scratch.path()) ==
        Words{"PWD=" + link.string()});
  CHECK(shell_exec_environment({"PWD=link"}, scratch.path()) ==
        Words{"PWD=" + scratch.path().string()});
  // The physical path when the workdir is named through a link.
  CHECK(shell_exec_environment({}, link) == Words{"PWD=" + scratch.path().string()});
}

TEST_CASE("a plain exec sees what the shell would have given it, forked or launched") {
  for (const bool launched : {false, true}) {
    CAPTURE(launched);
    ScratchDirectory scratch;
    Runner runner(scratch.path(), launched);
    const std::vector<std::pair<std::string, std::string>> env = {
        {"KG_PLAIN_TEST", "value with spaces"}, {"PWD", "/not/here"}, {"KG-BAD", "x"}};
    // The quotes make the second one a shell command with the same words.
    const CommandResult plain = runner.run("exec /usr/bin/env", env);
    const CommandResult shell = runner.run("exec '/usr/bin/env'", env);
    REQUIRE(plain.exit_code == 0);
    REQUIRE(shell.exit_code == 0);
    CHECK(sorted_lines(plain.stdout_text) == sorted_lines(shell.stdout_text));
    CHECK(plain.stdout_text.find("KG_PLAIN_TEST=value with spaces\n") != std::string::npos);
    CHECK(plain.stdout_text.find("PWD=" + scratch.path().string() + "\n") != std::string::npos);
    CHECK(plain.stdout_text.find("KG-BAD") == std::string::npos);
    const CommandResult argv = runner.run("exec /usr/bin/printf %s, a=b -x .");
    CHECK(argv.stdout_text == "a=b,-x,.,");
  }
}

TEST_CASE("a plain exec whose program cannot run ends as it did under the shell") {
  for (const bool launched : {false, true}) {
    CAPTURE(launched);
    ScratchDirectory scratch;
    Runner runner(scratch.path(), launched);
    const std::string missing = (scratch.path() / "missing").string();
    const CommandResult plain_missing = runner.run("exec " + missing);
    const CommandResult shell_missing = runner.run("exec '" + missing + "'");
    CHECK(plain_missing.exit_code == 127);
    CHECK(plain_missing.exit_code == shell_missing.exit_code);
    CHECK(plain_missing.stderr_text == shell_missing.stderr_text);
    CHECK(plain_missing.stderr_text.find("not found") != std::string::npos);

    const auto denied = scratch.path() / "denied";
    write_file(denied, "echo never\n", 0644);
    const CommandResult plain_denied = runner.run("exec " + denied.string());
    CHECK(plain_denied.exit_code == 126);
    CHECK(plain_denied.stdout_text.empty());
    CHECK(plain_denied.stderr_text == runner.run("exec '" + denied.string() + "'").stderr_text);

    // No #!: execve refuses it (ENOEXEC) and the shell runs it as a script, as it always did.
    const auto script = scratch.path() / "script";
    write_file(script, "echo \"script $1 in $PWD\"\n", 0755);
    const CommandResult ran = runner.run("exec " + script.string() + " arg");
    CHECK(ran.exit_code == 0);
    CHECK(ran.stdout_text == "script arg in " + scratch.path().string() + "\n");
  }
}
