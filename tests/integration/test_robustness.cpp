// The daemon under load and abuse: the bounded wait queue for session slots, request size,
// depth and encoding caps, graceful shutdown mid-call, and recovery after kill -9 mid-call.
// Each test checks what the client sees, what SQLite recorded, and that no sandbox is left.
#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const char* kHello = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n";
const std::string kHelloRequest =
    R"({"code":"package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\") }\n"})";
const std::string kSleeperRequest =
    R"({"code":"package main\nimport \"time\"\nfunc main() { time.Sleep(time.Minute) }\n"})";

// Replaces the fixture's [daemon] max_sessions line with `daemon_keys` (before start()).
void configure(DaemonFixture& daemon, const std::string& daemon_keys) {
  std::ifstream in(daemon.config_path());
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  const std::string line = "max_sessions = 8\n";
  const auto at = config.find(line);
  REQUIRE(at != std::string::npos);
  config.replace(at, line.size(), daemon_keys);
  std::ofstream(daemon.config_path(), std::ios::trunc) << config;
}

std::string error_code(DaemonFixture& daemon, const kg::net::HttpResponse& response) {
  const auto doc = daemon.json(response);
  REQUIRE(doc.HasMember("error"));
  return json_string(doc["error"], "code");
}

std::string error_message(DaemonFixture& daemon, const kg::net::HttpResponse& response) {
  return json_string(daemon.json(response)["error"], "message");
}

long elapsed_ms(Clock::time_point since) {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count());
}

// Rows of a query against the daemon's database, every column as text ("" for NULL).
std::vector<std::vector<std::string>> query_db(const DaemonFixture& daemon, const std::string& sql) {
  sqlite3* db = nullptr;
  const auto path = daemon.state_dir() + "/kode-gopher.db";
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* statement = nullptr;
  INFO(sql << ": " << sqlite3_errmsg(db));
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK);
  std::vector<std::vector<std::string>> rows;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(statement); ++i) {
      const auto* text = sqlite3_column_text(statement, i);
      row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

// A raw connection to the daemon's socket, for what the HTTP client will not do: hang up
// mid-request, send more than it declared, or keep writing after the server answered.
class RawConnection {
 public:
  explicit RawConnection(const std::string& socket_path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  }
  ~RawConnection() { close(); }

  // Sends all of `data`; false once the daemon no longer takes bytes (it answered and closed).
  bool send_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }
  // Everything the daemon sends until it closes the connection.
  std::string read_all() {
    std::string text;
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::recv(fd_, buffer, sizeof buffer, 0);
      if (got <= 0) break;
      text.append(buffer, static_cast<std::size_t>(got));
    }
    return text;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// The status code and body of a raw HTTP/1.1 response (the body as sent, not de-chunked).
std::pair<int, std::string> split_response(const std::string& response) {
  REQUIRE(response.starts_with("HTTP/1.1 "));
  const auto body_at = response.find("\r\n\r\n");
  REQUIRE(body_at != std::string::npos);
  return {std::stoi(response.substr(9, 3)), response.substr(body_at + 4)};
}

// daemon.post_streaming, returning when the daemon ends the stream or the connection breaks.
void post_streaming(const DaemonFixture& daemon, const std::string& target,
                    const std::string& body, const std::function<void(const std::string&)>& on_line) {
  try {
    daemon.post_streaming(target, body, on_line);
  } catch (const Poco::Exception&) {
    // The daemon went away mid-stream (the crash test kills it).
  }
}

// Waits until `predicate` holds, polling; false when it did not within `limit`.
bool eventually(const std::function<bool()>& predicate, std::chrono::milliseconds limit = 10s) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return predicate();
}

std::size_t open_sessions(DaemonFixture& daemon) {
  return daemon.json(daemon.get("/v1/sessions"))["sessions"].Size();
}

}  // namespace

TEST_CASE("a call beyond max_sessions waits for a slot, and the wait is its queue_ms") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\nmax_queued = 4\n");
  daemon.start();
  // The first call holds the only slot for at least its one-second run.
  kg::net::HttpResponse first, second;
  std::thread first_call([&] {
    first = daemon.post("/v1/execute", R"({"code":"package main\nimport \"time\"\nfunc main() { time.Sleep(time.Second) }\n"})");
  });
  REQUIRE(eventually([&] { return open_sessions(daemon) == 1; }));
  const auto second_started = Clock::now();
  std::thread second_call([&] { second = daemon.post("/v1/execute", kHelloRequest); });
  first_call.join();
  second_call.join();
  INFO("first: " << first.body << "\nsecond: " << second.body);
  REQUIRE(first.status == 200);
  REQUIRE(second.status == 200);
  const auto first_result = daemon.json(first);
  const auto second_result = daemon.json(second);
  CHECK(json_string(second_result, "stdout") == "hi\n");
  // The second call waited at least for the first one's run; the first one did not wait.
  const auto queue_ms = second_result["queue_ms"].GetInt64();
  CHECK(queue_ms >= 900);
  CHECK(queue_ms <= elapsed_ms(second_started));
  CHECK(second_result["duration_ms"].GetInt64() >= queue_ms);
  CHECK(first_result["queue_ms"].GetInt64() < 500);
  // SQLite recorded the same wait.
  const auto rows = query_db(daemon, "SELECT queue_ms FROM calls WHERE id = " +
                                         std::to_string(second_result["call_id"].GetInt64()));
  REQUIRE(rows.size() == 1);
  CHECK(std::stoll(rows[0][0]) == queue_ms);
  CHECK(open_sessions(daemon) == 0);
}

TEST_CASE("with max_queued = 0 a caller beyond max_sessions gets queue_full at once") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\nmax_queued = 0\n");
  daemon.start();
  const auto holder = daemon.open_session();
  const auto started = Clock::now();
  const auto refused = daemon.post("/v1/execute", kHelloRequest);
  CHECK(elapsed_ms(started) < 1000);
  CHECK(refused.status == 503);
  CHECK(error_code(daemon, refused) == "queue_full");
  CHECK(error_message(daemon, refused) ==
        "No session slot is free and the wait queue is full: 1 of 1 sessions are open ([daemon] "
        "max_sessions) and 0 callers wait for one (at most 0, [daemon] max_queued); raise "
        "[daemon] max_sessions or max_queued, or try again later");
  CHECK(daemon.post("/v1/sessions", "{}").status == 503);
  // Closing the session frees its slot.
  REQUIRE(daemon.del("/v1/sessions/" + holder).status == 200);
  CHECK(daemon.post("/v1/sessions", "{}").status == 201);
}

TEST_CASE("a runtime this build does not have is a 400 naming the available ones, before any wait") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\nmax_queued = 0\n");  // a wait would be queue_full
  daemon.start();
  const auto holder = daemon.open_session();
  const std::string refusal =
      "runtime \"gopherjs\" is not available; available runtimes: compiled-go, yaegi, auto";
  const auto one_shot = daemon.post(
      "/v1/execute", R"({"code":"package main\nfunc main() {}\n","runtime":"gopherjs"})");
  CHECK(one_shot.status == 400);
  CHECK(error_code(daemon, one_shot) == "bad_request");
  CHECK(error_message(daemon, one_shot) == refusal);
  const auto in_session = daemon.post("/v1/sessions/" + holder + "/execute",
                                      R"({"code":"package main\nfunc main() {}\n","runtime":"gopherjs"})");
  CHECK(in_session.status == 400);
  CHECK(error_message(daemon, in_session) == refusal);
  const auto open_tinygo = daemon.post("/v1/sessions", R"({"runtime":"tinygo"})");
  CHECK(open_tinygo.status == 400);
  CHECK(error_code(daemon, open_tinygo) == "bad_request");
  CHECK(error_message(daemon, open_tinygo) ==
        "runtime \"tinygo\" is not available; available runtimes: compiled-go, yaegi, auto");
  // Nothing ran and nothing was opened for them; the held session is still usable.
  CHECK(query_db(daemon, "SELECT id FROM calls").empty());
  CHECK(query_db(daemon, "SELECT id FROM sessions").size() == 1);
  CHECK(daemon.get("/v1/sessions/" + holder).status == 200);
}

TEST_CASE("a caller that waits longer than queue_timeout_ms gets queue_full") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\nmax_queued = 1\nqueue_timeout_ms = 700\n");
  daemon.start();
  daemon.open_session();
  kg::net::HttpResponse waited;
  long waited_ms = 0;
  std::thread waiter([&] {
    const auto started = Clock::now();
    waited = daemon.post("/v1/execute", kHelloRequest);
    waited_ms = elapsed_ms(started);
  });
  // While it waits the line is full: the next caller is refused at once.
  std::this_thread::sleep_for(200ms);
  const auto started = Clock::now();
  const auto refused = daemon.post("/v1/sessions", "{}");
  CHECK(elapsed_ms(started) < 400);
  CHECK(refused.status == 503);
  CHECK(error_message(daemon, refused).find("1 caller waits for one (at most 1") !=
        std::string::npos);
  waiter.join();
  CHECK(waited_ms >= 700);
  CHECK(waited_ms < 5000);
  CHECK(waited.status == 503);
  CHECK(error_code(daemon, waited) == "queue_full");
  CHECK(error_message(daemon, waited).starts_with(
        "No session slot became free within 700 ms ([daemon] queue_timeout_ms): 1 of 1 sessions "
        "are open"));
  CHECK(query_db(daemon, "SELECT id FROM calls").empty());  // nothing ran
}

TEST_CASE("a queued caller that is cancelled or hangs up leaves the line") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\nmax_queued = 1\n");
  daemon.start();
  const auto holder = daemon.open_session();

  // Cancel: a streamed one-shot call learns its session id while it waits, and is cancelled by it.
  std::string last_line, queued_line;
  std::thread queued([&] {
    post_streaming(daemon, "/v1/execute", kHelloRequest, [&](const std::string& line) {
      last_line = line;
      if (line.find("waiting for a session slot") == std::string::npos) return;
      queued_line = line;
      const auto at = line.find("POST /v1/sessions/") + 18;
      const auto id = line.substr(at, line.find('/', at) - at);
      const auto cancelled = daemon.post("/v1/sessions/" + id + "/cancel", "");
      CHECK(cancelled.body == R"({"cancelled":true})");
    });
  });
  queued.join();
  CHECK(queued_line.starts_with(
      R"({"progress":{"phase":"setup","detail":"waiting for a session slot: 1 of 1 open, 0 callers ahead; POST /v1/sessions/s-)"));
  CHECK(last_line.starts_with(R"({"error":{"code":"cancelled")"));

  // Hang-up: while the quitter waits the line is full; once it hung up there is room again.
  {
    RawConnection quitter(daemon.socket_path());
    REQUIRE(quitter.send_all("POST /v1/execute HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                             "application/json\r\nContent-Length: " +
                             std::to_string(kHelloRequest.size()) + "\r\n\r\n" + kHelloRequest));
    std::this_thread::sleep_for(300ms);
    CHECK(daemon.post("/v1/sessions", "{}").status == 503);
  }  // hangs up
  std::this_thread::sleep_for(700ms);  // the daemon looks a few times a second
  std::atomic<int> next_status{0};
  std::thread next([&] { next_status = daemon.post("/v1/sessions", "{}").status; });
  std::this_thread::sleep_for(300ms);
  CHECK(next_status == 0);  // waiting in line, not refused
  REQUIRE(daemon.del("/v1/sessions/" + holder).status == 200);
  next.join();
  CHECK(next_status == 201);
  CHECK(query_db(daemon, "SELECT id FROM calls").empty());  // neither queued call ran
}

TEST_CASE("oversized, deeply nested and non-UTF-8 requests get clear errors; the daemon goes on") {
  DaemonFixture daemon;
  daemon.start();
  const std::string head =
      "POST /v1/execute HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n";
  const std::string mebibyte(1 << 20, ' ');
  constexpr std::size_t k100MiB = 100u << 20;

  SUBCASE("a 100 MiB Content-Length is refused before the body is read") {
    RawConnection connection(daemon.socket_path());
    REQUIRE(connection.send_all(head + "Content-Length: " + std::to_string(k100MiB) + "\r\n\r\n"));
    std::size_t sent = 0;
    while (sent < k100MiB && connection.send_all(mebibyte)) sent += mebibyte.size();
    CHECK(sent < (4u << 20));  // the daemon closed the connection long before
    const auto [status, body] = split_response(connection.read_all());
    CHECK(status == 413);
    CHECK(body == R"({"error":{"code":"payload_too_large","message":"The request body of 104857600 bytes is over the daemon's limit of 16777216 bytes; send a smaller request, or raise [daemon] max_request_bytes"}})");
  }
  SUBCASE("a chunked body is cut off at the limit") {
    RawConnection connection(daemon.socket_path());
    REQUIRE(connection.send_all(head + "Transfer-Encoding: chunked\r\n\r\n"));
    std::size_t sent = 0;
    std::ostringstream size;
    size << std::hex << mebibyte.size();
    while (sent < k100MiB && connection.send_all(size.str() + "\r\n" + mebibyte + "\r\n")) {
      sent += mebibyte.size();
    }
    CHECK(sent < (20u << 20));  // 16 MiB, the limit, and what the socket buffers
    const auto [status, body] = split_response(connection.read_all());
    CHECK(status == 413);
    CHECK(body.find("The request body is over the daemon's limit of 16777216 bytes; send a "
                    "smaller request, or raise [daemon] max_request_bytes") != std::string::npos);
  }
  SUBCASE("JSON nested deeper than 64 levels") {
    const auto response = daemon.post("/v1/execute", "{\"code\":" + std::string(100'000, '['));
    CHECK(response.status == 400);
    CHECK(error_code(daemon, response) == "bad_request");
    CHECK(error_message(daemon, response) ==
          "JSON nested deeper than 64 levels at line 1, column 72; flatten the request");
  }
  SUBCASE("invalid UTF-8") {
    const auto response = daemon.post("/v1/execute", "{\"code\":\"package main // caf\xe9\"}");
    CHECK(response.status == 400);
    CHECK(error_code(daemon, response) == "bad_request");
    CHECK(error_message(daemon, response) ==
          "invalid UTF-8 in a JSON string at line 1, column 29; the request body must be UTF-8 "
          "(escape other text as \\uXXXX)");
  }
  // Healthy, and it never held the 100 MiB: its peak resident size stays far below.
  CHECK(daemon.get("/v1/health").status == 200);
  std::ifstream status_file("/proc/" + std::to_string(daemon.pid()) + "/status");
  std::string line;
  long peak_kib = -1;
  while (std::getline(status_file, line)) {
    if (line.starts_with("VmHWM:")) peak_kib = std::stol(line.substr(6));
  }
  CHECK(peak_kib > 0);
  CHECK(peak_kib < 96 * 1024);
}

TEST_CASE("SIGTERM mid-call ends the call and the queue, closes every session, leaves no sandbox") {
  DaemonFixture daemon;
  configure(daemon, "max_sessions = 1\n");
  daemon.start();
  const auto session = daemon.open_session();
  std::string last_line;
  std::atomic<bool> running{false};
  std::thread call([&] {
    post_streaming(daemon, "/v1/sessions/" + session + "/execute", kSleeperRequest,
                   [&](const std::string& line) {
                     last_line = line;
                     if (line.find(R"("phase":"run")") != std::string::npos) running = true;
                   });
  });
  REQUIRE(eventually([&] { return running.load(); }, 300s));
  const auto sandbox_id =
      json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "sandbox_id");
  REQUIRE(fs::exists(daemon.state_dir() + "/sandboxes/" + sandbox_id));
  // A one-shot call waits for the only slot.
  kg::net::HttpResponse queued_answer;
  std::thread queued([&] { queued_answer = daemon.post("/v1/execute", kHelloRequest); });
  std::this_thread::sleep_for(300ms);

  const auto stopping = Clock::now();
  daemon.stop_gracefully();  // SIGTERM; checks exit code 0
  CHECK(elapsed_ms(stopping) < 10'000);
  call.join();
  queued.join();
  INFO("last line: " << last_line << "\nqueued: " << queued_answer.body);
  CHECK(last_line.starts_with(R"({"error":{"code":"shutting_down")"));
  CHECK(queued_answer.status == 503);
  CHECK(queued_answer.body.find("shutting_down") != std::string::npos);

  CHECK(daemon.sandbox_processes().empty());
  CHECK(fs::is_empty(daemon.state_dir() + "/sandboxes"));
  CHECK(query_db(daemon, "SELECT id, state, close_reason FROM sessions") ==
        std::vector<std::vector<std::string>>{{session, "closed", "daemon stopped"}});
  const auto calls = query_db(daemon, "SELECT state, status, error_message FROM calls");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0][0] == "interrupted");
  CHECK(calls[0][1] == "interrupted");
  INFO("error_message: " << calls[0][2]);
  CHECK(calls[0][2].starts_with("The daemon is shutting down; the call was stopped before it "
                                "finished: "));
}

TEST_CASE("after kill -9 mid-call the next start reaps the sandbox and marks call and session") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  std::atomic<bool> running{false};
  std::thread call([&] {
    post_streaming(daemon, "/v1/sessions/" + session + "/execute", kSleeperRequest,
                   [&](const std::string& line) {
                     if (line.find(R"("phase":"run")") != std::string::npos) running = true;
                   });
  });
  REQUIRE(eventually([&] { return running.load(); }, 300s));
  std::this_thread::sleep_for(200ms);
  const auto sandbox_id =
      json_string(daemon.json(daemon.get("/v1/sessions/" + session)), "sandbox_id");
  const auto sandbox_dir = daemon.state_dir() + "/sandboxes/" + sandbox_id;
  pid_t bwrap_pid = 0;
  std::ifstream(sandbox_dir + "/bwrap.pid") >> bwrap_pid;
  REQUIRE(bwrap_pid > 1);
  CHECK(::kill(bwrap_pid, 0) == 0);
  // The call is in the database while it runs, not only once it ends.
  CHECK(query_db(daemon, "SELECT state FROM calls") ==
        std::vector<std::vector<std::string>>{{"running"}});

  daemon.kill_hard();
  call.join();
  daemon.start();
  // The orphan is gone: its bubblewrap (and so everything in its pid namespace) and its folder.
  std::ifstream cmdline("/proc/" + std::to_string(bwrap_pid) + "/cmdline");
  std::string command((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  CHECK(command.find(sandbox_dir) == std::string::npos);
  CHECK(daemon.sandbox_processes().empty());
  CHECK_FALSE(fs::exists(sandbox_dir));
  CHECK(query_db(daemon, "SELECT state, close_reason FROM sessions WHERE id = '" + session + "'") ==
        std::vector<std::vector<std::string>>{{"interrupted", "daemon stopped unexpectedly"}});
  CHECK(query_db(daemon, "SELECT state, error_message FROM calls") ==
        std::vector<std::vector<std::string>>{{"interrupted", "daemon stopped unexpectedly"}});
  // And it serves new work.
  const auto fresh = daemon.open_session();
  CHECK(json_string(daemon.execute(fresh, kHello), "stdout") == "hi\n");
}
