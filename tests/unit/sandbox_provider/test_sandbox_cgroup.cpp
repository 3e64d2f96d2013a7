// The cgroup limits on this machine, for real: a process is put in a sandbox's cgroup exactly
// as the spawner does (writing "0" to cgroup.procs), then made to exceed them.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "sandbox_cgroup.hpp"
#include "../../support/test_loggers.hpp"

using namespace kg::sandbox;

namespace {

// Forks a child that joins the given cgroup.procs files and runs `body`; returns its wait status.
int run_in_files(const std::vector<std::string>& files, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (const auto& file : files) {
      std::ofstream out(file);
      out << "0";
      out.flush();
      if (!out) ::_exit(100);
    }
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// As a command: in the `commands` cgroup, which the server puts every command in.
int run_in(const SandboxCgroup& cgroup, const std::function<int()>& body) {
  return run_in_files(cgroup.command_procs_files(), body);
}

std::unique_ptr<CgroupHierarchy> hierarchy_or_skip(kg::test::NullLogger& logger) {
  auto hierarchy = CgroupHierarchy::detect(logger);
  if (!hierarchy->available() && ::geteuid() != 0) {
    MESSAGE("skipped: " << hierarchy->description());
    return nullptr;
  }
  // As root (CI), a machine without usable cgroups is a failure, not a skip.
  REQUIRE_MESSAGE(hierarchy->available(), hierarchy->description());
  return hierarchy;
}

}  // namespace

TEST_CASE("a process over the sandbox's memory limit is OOM-killed and counted") {
  kg::test::NullLogger logger;
  auto hierarchy = hierarchy_or_skip(logger);
  if (!hierarchy) return;
  auto cgroup = hierarchy->create("sb-test-memory");
  cgroup->set_limits(64ull << 20, 64);
  CHECK(cgroup->oom_kills() == 0);
  const int status = run_in(*cgroup, [] {
    const std::size_t size = 512ull << 20;
    auto* memory = static_cast<char*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (memory == MAP_FAILED) return 3;
    std::memset(memory, 1, size);  // touches every page
    return 0;
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(cgroup->oom_kills() >= 1);
}

TEST_CASE("an out-of-memory command is killed, never the server beside it") {
  kg::test::NullLogger logger;
  auto hierarchy = hierarchy_or_skip(logger);
  if (!hierarchy) return;
  auto cgroup = hierarchy->create("sb-test-server");
  cgroup->set_sandbox_limits(256ull << 20, 64);
  cgroup->set_limits(64ull << 20, 64);
  // The "server": in `server`, holding 32 MiB and marked as the OOM killer's first choice, as
  // a command would try to make it.
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t server = ::fork();
  REQUIRE(server >= 0);
  if (server == 0) {
    for (const auto& file : cgroup->procs_files()) std::ofstream(file) << "0";
    std::ofstream("/proc/self/oom_score_adj") << "1000";
    const std::size_t size = 32ull << 20;
    auto* memory = static_cast<char*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::memset(memory, 1, size);
    [[maybe_unused]] auto wrote = ::write(ready[1], "r", 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  ::close(ready[1]);
  const int status = run_in(*cgroup, [] {
    std::ofstream("/proc/self/oom_score_adj") << "-1000";  // refused without privilege: fine
    const std::size_t size = 512ull << 20;
    auto* memory = static_cast<char*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (memory == MAP_FAILED) return 3;
    std::memset(memory, 1, size);
    return 0;
  });
  CHECK(WIFSIGNALED(status));
  CHECK(cgroup->oom_kills() >= 1);
  int server_status = 0;
  CHECK(::waitpid(server, &server_status, WNOHANG) == 0);  // still running
  ::kill(server, SIGKILL);
  ::waitpid(server, &server_status, 0);
}

TEST_CASE("forks beyond the sandbox's pids limit fail") {
  kg::test::NullLogger logger;
  auto hierarchy = hierarchy_or_skip(logger);
  if (!hierarchy) return;
  auto cgroup = hierarchy->create("sb-test-pids");
  if (hierarchy->version() == CgroupVersion::v1 && cgroup->command_procs_files().size() < 2) {
    MESSAGE("skipped: no cgroup v1 pids hierarchy on this machine");
    return;
  }
  cgroup->set_limits(256ull << 20, 32);
  int report[2];
  REQUIRE(::pipe(report) == 0);
  run_in(*cgroup, [&] {
    ::setpgid(0, 0);  // a group of its own, so the kill below takes only its sleepers and itself
    int started = 0;
    for (int i = 0; i < 64; ++i) {
      const pid_t child = ::fork();
      if (child == 0) {
        ::pause();
        ::_exit(0);
      }
      if (child > 0) ++started;
    }
    [[maybe_unused]] auto ignored = ::write(report[1], &started, sizeof started);
    ::kill(0, SIGKILL);
    return 0;
  });
  int started = -1;
  REQUIRE(::read(report[0], &started, sizeof started) == sizeof started);
  ::close(report[0]);
  ::close(report[1]);
  CHECK(started > 0);
  // 32 tasks for the command (itself among them) and one for the server's command launcher,
  // which a real sandbox keeps in `commands` and this test does not.
  CHECK(started < 32 + static_cast<int>(kg::sandbox::SandboxCgroup::kLauncherTasks));
}

TEST_CASE("a sandbox's cgroup folders are gone once it is destroyed, processes and all") {
  kg::test::NullLogger logger;
  auto hierarchy = hierarchy_or_skip(logger);
  if (!hierarchy) return;
  auto cgroup = hierarchy->create("sb-test-cleanup");
  const auto files = cgroup->procs_files();
  REQUIRE_FALSE(files.empty());
  const pid_t sleeper = ::fork();
  REQUIRE(sleeper >= 0);
  if (sleeper == 0) {
    for (const auto& file : files) std::ofstream(file) << "0";
    ::pause();
    ::_exit(0);
  }
  const auto joined = [&] {
    std::ifstream in(files.front());
    pid_t pid = 0;
    return static_cast<bool>(in >> pid);
  };
  for (int i = 0; i < 200 && !joined(); ++i) ::usleep(10'000);
  REQUIRE(joined());
  cgroup.reset();
  int status = 0;
  CHECK(::waitpid(sleeper, &status, 0) == sleeper);
  CHECK(WIFSIGNALED(status));
  for (const auto& file : files) {
    CHECK_FALSE(std::filesystem::exists(std::filesystem::path(file).parent_path()));
  }
}
