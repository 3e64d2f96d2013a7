// A daemon must serve from any starting state: a Go build cache never prewarmed (a fresh state
// dir), or one made for another toolchain or lockfile (its stamp differs). It answers at once,
// uses no CPU while idle, builds the cache once for the first calls that need it (with
// progress), and stops on SIGTERM in seconds, mid-build too. And a root daemon's defaults keep
// its sandboxes on an unprivileged uid.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "daemon_fixture.hpp"

using namespace kg::test;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// utime + stime of a process, in clock ticks.
long long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::stoll(field);
    if (index == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  return utime + stime;
}

std::string cache_state(DaemonFixture& daemon) {
  const auto health = daemon.json(daemon.get("/v1/health"));
  return json_string(health["go_build_cache"], "state");
}

// SIGTERM, and how long the daemon took to exit (CHECKs it exited 0).
long long stop_and_time(DaemonFixture& daemon) {
  const auto started = Clock::now();
  daemon.stop_gracefully();
  return ms_since(started);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

// A copy of the shared prewarmed cache made of hard links (cheap), whose stamp says another
// lockfile: what a daemon finds after the lockfile or the toolchain changed. The stamp is
// replaced, never written through its link.
std::string stale_copy_of_shared_cache(const std::string& dir) {
  const std::string copy = dir + "/stale-gocache";
  fs::copy(required_env("KG_BASE_CACHE"), copy,
           fs::copy_options::recursive | fs::copy_options::create_hard_links);
  const std::string stamp = copy + "/kode-gopher-stamp";
  std::string text = read_file(stamp);
  const auto at = text.find("lockfile ");
  REQUIRE(at != std::string::npos);
  text.replace(at, 9, "lockfile 0000");
  fs::remove(stamp);
  std::ofstream(stamp) << text;
  return copy;
}

DaemonFixtureOptions with_base_cache(const std::string& dir) {
  DaemonFixtureOptions options;
  options.base_cache_dir = dir;
  return options;
}


}  // namespace

TEST_CASE("first run: a daemon without a prewarmed cache answers at once, idles and stops on SIGTERM") {
  const std::string empty_cache = unique_temp_dir("kg-empty-gocache-");
  DaemonFixture daemon(with_base_cache(empty_cache));
  const auto started = Clock::now();
  daemon.start();
  CHECK(ms_since(started) < 1000);
  CHECK(cache_state(daemon) == "stale");
  // Idle: no refill loop, no rehashing. 2 s of wall time, well under 0.2 s of CPU.
  const long long before = cpu_ticks(daemon.pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long long used = cpu_ticks(daemon.pid()) - before;
  CHECK(used * 1000 / ::sysconf(_SC_CLK_TCK) < 200);
  CHECK(daemon.get("/v1/health").status == 200);
  CHECK(stop_and_time(daemon) < 5000);
  fs::remove_all(empty_cache);
}

TEST_CASE("first run: a stale cache is rebuilt once by the first calls, with progress") {
  DaemonFixture probe;  // for a directory of its own
  const std::string stale = stale_copy_of_shared_cache(probe.dir());
  DaemonFixture daemon(with_base_cache(stale));
  daemon.start();
  CHECK(cache_state(daemon) == "stale");
  // Two callers at once: one build, both wait for it and hear about it.
  std::mutex mutex;
  std::vector<std::string> lines[2];
  int statuses[2] = {0, 0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 2; ++i) {
    callers.emplace_back([&, i] {
      const std::string body = R"({"files": {"main.go": ")" + std::string(i == 0 ? "package main\\n\\nimport \\\"fmt\\\"\\n\\nfunc main() { fmt.Println(\\\"one\\\") }\\n" : "package main\\n\\nimport \\\"fmt\\\"\\n\\nfunc main() { fmt.Println(\\\"two\\\") }\\n") + R"("}})";
      statuses[i] = daemon.post_streaming("/v1/execute", body, [&](const std::string& line) {
        std::lock_guard lock(mutex);
        lines[i].push_back(line);
      });
    });
  }
  for (auto& caller : callers) caller.join();
  for (int i = 0; i < 2; ++i) {
    std::string all;
    for (const auto& line : lines[i]) all += line + "\n";
    INFO("caller " << i << ": " << all);
    CHECK(statuses[i] == 200);
    // The build's step, or the wait for the build another call started.
    CHECK((all.find("Compiling the standard library") != std::string::npos ||
           all.find("Waiting for the Go build cache") != std::string::npos));
    CHECK(all.find(i == 0 ? "one\\n" : "two\\n") != std::string::npos);
  }
  CHECK(cache_state(daemon) == "current");
  const std::string log = read_file(daemon.dir() + "/daemon.log");
  CHECK(count_of(log, "info Compiling the standard library") == 1);
  CHECK(read_file(stale + "/kode-gopher-stamp").find("lockfile 0000") == std::string::npos);
  // The shared cache's own stamp was not touched through a link.
  CHECK(read_file(required_env("KG_BASE_CACHE") + "/kode-gopher-stamp").find("lockfile 0000") ==
        std::string::npos);
  CHECK(stop_and_time(daemon) < 5000);
  fs::remove_all(stale);
}

TEST_CASE("first run: SIGTERM during the prewarm stops the daemon in seconds, sandboxes and all") {
  const std::string empty_cache = unique_temp_dir("kg-empty-gocache-");
  DaemonFixture daemon(with_base_cache(empty_cache));
  daemon.start();
  std::atomic<bool> compiling{false};
  std::string last_line;
  std::thread caller([&] {
    try {
      daemon.post_streaming("/v1/execute", R"({"files": {"main.go": "package main\n\nfunc main() {}\n"}})",
                            [&](const std::string& line) {
                              if (line.find("Compiling the standard library") != std::string::npos) {
                                compiling = true;
                              }
                              last_line = line;
                            });
    } catch (const std::exception&) {
      last_line = "the stream broke";  // the daemon went away mid-stream: fine, it is stopping
    }
  });
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!compiling && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(compiling);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // well into the compile
  CHECK(cache_state(daemon) == "building");
  CHECK(stop_and_time(daemon) < 5000);
  caller.join();
  INFO(last_line);
  CHECK(last_line.find("\"result\"") == std::string::npos);  // no result: an error, or a cut stream
  CHECK((last_line.find("shutting_down") != std::string::npos || last_line == "the stream broke"));
  CHECK(daemon.sandbox_processes().empty());
  fs::remove_all(empty_cache);
}

TEST_CASE("first run: a root daemon's default state dir keeps sandboxes on uid 65534") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root");
    return;
  }
  // Root's own home is private, as on a fresh VM: nothing of the daemon may live there.
  const std::string home = unique_temp_dir("kg-root-home-");
  fs::permissions(home, fs::perms::owner_all);
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home ? old_home : "";
  ::setenv("HOME", home.c_str(), 1);
  ::unsetenv("XDG_STATE_HOME");
  DaemonFixtureOptions options;
  options.default_state_dir = true;
  DaemonFixture daemon(options);
  daemon.start();
  ::setenv("HOME", saved_home.c_str(), 1);
  const auto health = daemon.json(daemon.get("/v1/health"));
  CHECK(json_string(health, "state_dir") == "/var/lib/kode-gopher");
  std::string isolation;
  for (const auto& line : health["isolation"].GetArray()) isolation += std::string(line.GetString()) + "\n";
  INFO(isolation);
  CHECK(isolation.find("maps to host uid 65534") != std::string::npos);
  CHECK(health["warnings"].Empty());
  // The program (uid 1000 inside) runs as host uid 65534: seen from the host while it sleeps.
  std::thread call([&] {
    daemon.post("/v1/execute", R"({"files": {"main.go": "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(3 * time.Second) }\n"}})");
  });
  std::string host_uids;
  for (int i = 0; i < 200 && host_uids.empty(); ++i) {
    for (const pid_t pid : daemon.sandbox_processes()) {
      std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
      std::string argv0;
      std::getline(cmdline, argv0, '\0');
      // Built now, or a binary-cache hit of an earlier run on this machine.
      if (argv0 != "/home/gopher/.kode-gopher/prog" && !argv0.starts_with("/opt/kode-gopher/bincache/")) {
        continue;
      }
      std::ifstream status("/proc/" + std::to_string(pid) + "/status");
      for (std::string line; std::getline(status, line);) {
        if (line.starts_with("Uid:")) host_uids = line;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  call.join();
  INFO(host_uids);
  std::istringstream uids(host_uids.substr(std::min<std::size_t>(4, host_uids.size())));
  long real = -1, effective = -1;
  uids >> real >> effective;
  CHECK(real == 65534);
  CHECK(effective == 65534);
  daemon.stop_gracefully();
  fs::remove_all(home);
}

TEST_CASE("first run: host_uid = 0 is an explicit choice that /v1/health flags") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root");
    return;
  }
  DaemonFixtureOptions options;
  options.extra_sandbox_keys = "host_uid = 0\n";
  DaemonFixture daemon(options);
  daemon.start();
  const auto health = daemon.json(daemon.get("/v1/health"));
  REQUIRE(health["warnings"].Size() == 1);
  CHECK(std::string(health["warnings"][0].GetString()).find("host root") != std::string::npos);
  daemon.stop_gracefully();
}
