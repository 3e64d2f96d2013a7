// Sessions, sandboxes and the daemon's own life: reuse, close, SIGTERM, kill -9 and restart,
// and the CLI starting the daemon by itself.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

namespace {

const char* kHello = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n";

std::string session_state(DaemonFixture& daemon, const std::string& id) {
  const auto response = daemon.get("/v1/sessions/" + id);
  REQUIRE(response.status == 200);
  return json_string(daemon.json(response), "state");
}

}  // namespace

TEST_CASE("a session keeps its sandbox across calls and closing it stops the sandbox") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  // The first call leaves a file in /app/persist, the session's scratch folder (the rest of /app
  // and, before a build, /tmp and the home are reset).
  const auto first = daemon.execute(session, R"(package main

import "os"

func main() { os.WriteFile("/app/persist/marker", []byte("from call one"), 0o644) }
)");
  REQUIRE(json_string(first, "status") == "ok");
  const auto sandbox_id = json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "sandbox_id");
  CHECK(sandbox_id.starts_with("sb-"));
  const auto second = daemon.execute(session, R"(package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile("/app/persist/marker")
	if err != nil { panic(err) }
	_, err = os.Stat("/app/main.go")
	fmt.Printf("%s %v", data, err == nil)
}
)");
  CHECK(json_string(second, "stdout") == "from call one true");
  CHECK(json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "sandbox_id") == sandbox_id);
  CHECK_FALSE(daemon.sandbox_processes().empty());  // the sandbox is running

  const auto closed = daemon.del("/v1/sessions/" + session);
  CHECK(closed.status == 200);
  CHECK(json_string(daemon.json(closed), "state") == "closed");
  CHECK(daemon.sandbox_processes().empty());  // nothing left running
  CHECK_FALSE(std::filesystem::exists(daemon.state_dir() + "/sandboxes/" + sandbox_id));
  const auto after = daemon.post("/v1/sessions/" + session + "/execute", R"({"code":"package main"})");
  CHECK(after.status == 409);
  CHECK(after.body.find("session_closed") != std::string::npos);
}

TEST_CASE("SIGTERM closes every session, stops every sandbox and removes the socket") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  daemon.stop_gracefully();
  CHECK(daemon.sandbox_processes().empty());
  CHECK_FALSE(std::filesystem::exists(daemon.socket_path()));
  daemon.start();
  CHECK(session_state(daemon, session) == "closed");
}

namespace {

pid_t parent_of(pid_t pid) {
  std::istringstream status(kg::test::read_proc_file("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("PPid:")) return static_cast<pid_t>(std::stol(line.substr(5)));
  }
  return 0;
}

// Whether a built program (/home/gopher/.kode-gopher/prog inside) runs in one of the daemon's
// sandboxes: its private home is not visible from the host, its process is.
bool program_running_in(const DaemonFixture& daemon) {
  const auto sandboxes = daemon.sandbox_processes();
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline_text = kg::test::read_proc_file(entry.path() / "cmdline");
    const std::string cmdline = cmdline_text.substr(0, cmdline_text.find('\0'));
    if (cmdline != "/home/gopher/.kode-gopher/prog") continue;
    for (pid_t pid = std::stoi(name); pid > 1; pid = parent_of(pid)) {
      if (std::find(sandboxes.begin(), sandboxes.end(), pid) != sandboxes.end()) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("after kill -9 mid-call the daemon restarts and marks the session interrupted") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  REQUIRE(json_string(daemon.execute(session, kHello), "status") == "ok");
  std::thread call([&] {
    try {
      daemon.post("/v1/sessions/" + session + "/execute",
                  R"({"code":"package main\nimport \"time\"\nfunc main() { time.Sleep(time.Minute) }\n"})");
    } catch (...) {
      // The daemon dies under this call; the connection breaks.
    }
  });
  // Wait until the call is really running: the built program is a process in its sandbox.
  bool running = false;
  for (int i = 0; i < 1200 && !running; ++i) {
    running = program_running_in(daemon);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(running);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  daemon.kill_hard();
  call.join();
  // bubblewrap's --die-with-parent takes the sandbox down with the daemon.
  for (int i = 0; i < 50 && !daemon.sandbox_processes().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(daemon.sandbox_processes().empty());

  daemon.start();
  CHECK(session_state(daemon, session) == "interrupted");
  const auto stats = daemon.json(daemon.get("/v1/stats"));
  CHECK(stats["calls"]["total"].GetInt() == 2);
  // /metrics counts from SQLite: the finished call and the one the crash cut off, across the
  // restart (docs/metrics.md).
  const auto metrics = daemon.get("/metrics");
  INFO(metrics.body);
  CHECK(metrics.status == 200);
  CHECK(metrics.content_type.starts_with("text/plain; version=0.0.4"));
  CHECK(metrics.body.find("\nkode_gopher_calls_total{runtime=\"compiled-go\",status=\"ok\","
                          "phase=\"run\"} 1\n") != std::string::npos);
  CHECK(metrics.body.find("\nkode_gopher_calls_interrupted_total 1\n") != std::string::npos);
  CHECK(metrics.body.find("\nkode_gopher_call_duration_seconds_count{runtime=\"compiled-go\"} 1\n") !=
        std::string::npos);
  CHECK(metrics.body.find("\nkode_gopher_calls_running 0\n") != std::string::npos);
  CHECK(std::filesystem::is_empty(daemon.state_dir() + "/sandboxes"));
  // And it serves new work.
  const auto fresh = daemon.open_session();
  CHECK(json_string(daemon.execute(fresh, kHello), "stdout") == "hi\n");
}

TEST_CASE("the CLI starts the daemon when none answers, runs a program and shows stats") {
  DaemonFixture daemon;  // configured, not started: the CLI must start it
  const std::string program = daemon.dir() + "/hello";
  std::filesystem::create_directories(program);
  std::ofstream(program + "/main.go") << kHello;
  std::string out, err;
  const int rc = kg::test::run_cli({"--config", daemon.config_path(), "exec", program}, out, err);
  INFO("stdout: " << out << "\nstderr: " << err);
  CHECK(rc == 0);
  CHECK(err.find("starting the daemon") != std::string::npos);
  CHECK(out.starts_with("phase=run mode=verbatim runtime=compiled-go exit=0 ("));
  CHECK(out.find("── stdout ──\nhi\n") != std::string::npos);

  std::string broken_out, broken_err;
  std::ofstream(program + "/main.go") << "package main\nfunc main() { nope() }\n";
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "exec", program}, broken_out, broken_err) == 2);
  CHECK(broken_out.find("main.go:2:15: undefined: nope") != std::string::npos);

  std::string stats_out, stats_err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "stats"}, stats_out, stats_err) == 0);
  INFO("stats: " << stats_out);
  CHECK(stats_out.find("compiled-go") != std::string::npos);

  // Stop the daemon the CLI started.
  const auto health = kg::net::UnixHttpClient(daemon.socket_path()).get("/v1/health");
  kg::json::ReadJson doc_read = kg::test::read_test_json(health.body);
  rapidjson::Document& doc = doc_read.document;
  const pid_t pid = doc["pid"].GetInt();
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(::kill(pid, 0) != 0);
}

TEST_CASE("the daemon serves only its owner, even when its socket is opened to others") {
  DaemonFixture daemon;
  daemon.start();
  REQUIRE(::geteuid() != 65534);
  // Make the socket (and the folders above it) reachable by everyone, as a mistake would.
  ::chmod(daemon.socket_path().c_str(), 0666);
  ::chmod(daemon.dir().c_str(), 0755);
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    try {
      const auto response = kg::net::UnixHttpClient(daemon.socket_path()).get("/v1/health");
      ::_exit(response.status == 403 && response.body.find("forbidden") != std::string::npos ? 0 : 11);
    } catch (...) {
      ::_exit(12);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(daemon.get("/v1/health").status == 200);  // the owner still gets in
}

namespace {

// Ids of the sandboxes the warm pool has reported ready so far (its debug log lines).
std::vector<std::string> pooled_sandbox_ids(const DaemonFixture& daemon) {
  std::ifstream log(daemon.dir() + "/daemon.log");
  std::vector<std::string> ids;
  std::string line;
  const std::string prefix = "Warm pool: sandbox ";
  while (std::getline(log, line)) {
    const auto at = line.find(prefix);
    if (at == std::string::npos) continue;
    const auto start = at + prefix.size();
    ids.push_back(line.substr(start, line.find(' ', start) - start));
  }
  return ids;
}

std::vector<std::string> wait_for_pooled(const DaemonFixture& daemon, std::size_t count) {
  auto ids = pooled_sandbox_ids(daemon);
  for (int i = 0; i < 1200 && ids.size() < count; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ids = pooled_sandbox_ids(daemon);
  }
  return ids;
}

}  // namespace

TEST_CASE("the warm pool hands a new session a started sandbox, then refills") {
  DaemonFixture daemon;
  std::ofstream(daemon.config_path(), std::ios::app) << "[sandbox]\nwarm_pool = 1\n";
  daemon.start();
  const auto first = wait_for_pooled(daemon, 1);
  REQUIRE(first.size() == 1);
  const auto health = daemon.json(daemon.get("/v1/health"));
  CHECK(health["warm_sandboxes"].GetInt() == 1);
  // /v1/health also says what isolation the sandboxes get, as the log does at start.
  REQUIRE(health["isolation"].IsArray());
  std::string isolation;
  for (const auto& line : health["isolation"].GetArray()) isolation += std::string(line.GetString()) + "\n";
  INFO("isolation: " << isolation);
  CHECK(isolation.find("seccomp filter") != std::string::npos);
  CHECK(isolation.find("the sandbox user maps to ") != std::string::npos);
  const auto session = daemon.open_session();
  CHECK(json_string(daemon.execute(session, kHello), "stdout") == "hi\n");
  // The session got the pooled sandbox, not a new one.
  CHECK(json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "sandbox_id") == first[0]);
  // The pool makes the next one.
  const auto refilled = wait_for_pooled(daemon, 2);
  REQUIRE(refilled.size() == 2);
  CHECK(refilled[1] != first[0]);
  // A graceful stop takes the pooled sandbox down with the session's.
  daemon.stop_gracefully();
  CHECK(daemon.sandbox_processes().empty());
  CHECK(std::filesystem::is_empty(daemon.state_dir() + "/sandboxes"));
}
