// `kode-gopher serve` and the daemon behind it: started when nobody listens, found again after
// it stopped, one daemon session per connection, closed when the connection ends.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "daemon_fixture.hpp"
#include "serve_process.hpp"

using kg::test::compact;
using kg::test::DaemonFixture;
using kg::test::json_string;
using kg::test::ServeProcess;

namespace {

constexpr const char* kHello =
    R"({"code":"package main\n\nfunc main() { println(\"hello from a restarted daemon\") }\n"})";

// The pid of the daemon answering on the fixture's socket (one `serve` started, not the fixture).
pid_t daemon_pid(const DaemonFixture& daemon) {
  const auto health = daemon.json(daemon.get("/v1/health"));
  return static_cast<pid_t>(health["pid"].GetInt());
}

// True when the process has exited: gone, or a zombie its parent (serve) has not reaped yet.
bool has_exited(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto state = text.rfind(") ");
  return state != std::string::npos && text[state + 2] == 'Z';
}

// SIGTERM, then wait until the daemon has exited (it is serve's child, not ours: poll /proc).
void stop_daemon(pid_t pid) {
  REQUIRE(::kill(pid, SIGTERM) == 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!has_exited(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(has_exited(pid));
}

// Whatever daemon answers on the fixture's socket when the test ends, passed or not, is stopped.
struct StopDaemonAtEnd {
  const DaemonFixture& daemon;
  ~StopDaemonAtEnd() {
    try {
      if (daemon.get("/v1/health").status == 200) ::kill(daemon_pid(daemon), SIGTERM);
    } catch (...) {
    }
  }
};

rapidjson::Document call_execute(ServeProcess& serve, int id) {
  serve.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
             R"(,"method":"tools/call","params":{"name":"execute_go_code","arguments":)" + kHello +
             "}}");
  return serve.read_message(20 * 60);  // a first start may prewarm the Go build cache
}

}  // namespace

TEST_SUITE_BEGIN("clients");

TEST_CASE("serve starts the daemon when none runs, and starts it again after it stopped") {
  DaemonFixture daemon;  // only its config, dirs and socket: serve starts the daemon itself
  const StopDaemonAtEnd cleanup{daemon};
  ServeProcess serve(daemon.config_path());
  serve.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize",)"
             R"("params":{"protocolVersion":"2025-11-25","capabilities":{}}})");
  serve.read_message();

  const auto first = call_execute(serve, 1);
  INFO(compact(first));
  CHECK(compact(first["result"]["isError"]) == "false");
  const auto& first_result = first["result"]["structuredContent"];
  CHECK(json_string(first_result, "stderr") == "hello from a restarted daemon\n");
  const std::string first_session = json_string(first_result, "session_id");
  CHECK(serve.stderr_text().find("kode-gopher: starting the daemon (log: " + daemon.state_dir() +
                                 "/daemon.log)") != std::string::npos);
  const pid_t first_pid = daemon_pid(daemon);
  stop_daemon(first_pid);

  const auto second = call_execute(serve, 2);
  INFO(compact(second));
  CHECK(compact(second["result"]["isError"]) == "false");
  const std::string second_session =
      json_string(second["result"]["structuredContent"], "session_id");
  CHECK(second_session != first_session);
  const pid_t second_pid = daemon_pid(daemon);
  CHECK(second_pid != first_pid);

  CHECK(serve.close_and_wait() == 0);
  const auto session = daemon.json(daemon.get("/v1/sessions/" + second_session));
  CHECK(json_string(session, "client") == "mcp");
  CHECK(json_string(session, "state") == "closed");
  stop_daemon(second_pid);
}

TEST_CASE("serve describes the running daemon's [limits] in tools/list") {
  kg::test::DaemonFixtureOptions options;
  options.extra_sections =
      "[limits]\nrun_timeout_ms = 1500\nmax_run_timeout_ms = 90000\nbuild_timeout_ms = 240000\n"
      "output_bytes = 1048576\n";
  DaemonFixture daemon(options);
  daemon.start();
  ServeProcess serve(daemon.config_path());
  serve.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize",)"
             R"("params":{"protocolVersion":"2025-11-25","capabilities":{}}})");
  serve.read_message();
  serve.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const auto list = serve.read_message();
  const auto& execute = list["result"]["tools"][0];
  REQUIRE(json_string(execute, "name") == "execute_go_code");
  const std::string description = json_string(execute, "description");
  INFO(description);
  for (const char* stated : {"wall-clock limit (1500 ms on this daemon; the build has its own, 240 s)",
                             "up to the daemon's maximum (90000 ms on this daemon)",
                             "output_limit after 1 MiB of stdout or stderr)"}) {
    CAPTURE(stated);
    CHECK(description.find(stated) != std::string::npos);
  }
  CHECK(description.find("unless the operator") == std::string::npos);
  const std::string timeout =
      json_string(execute["inputSchema"]["properties"]["timeout_ms"], "description");
  CHECK(timeout.find("the default (1500 on this daemon)") != std::string::npos);
  CHECK(timeout.find("max_run_timeout_ms (90000 ms on this daemon)") != std::string::npos);
  CHECK(serve.close_and_wait() == 0);
  daemon.stop_gracefully();
}

TEST_SUITE_END();
