// The daemon API's streamed execute (NDJSON progress), cancellation, and package docs.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

namespace {


const char* kSleeper = R"({"code":"package main\nimport \"time\"\nfunc main() { time.Sleep(time.Minute) }\n"})";

}  // namespace

TEST_CASE("a streamed execute reports each phase, then the result") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  std::vector<std::string> lines;
  const int status = daemon.post_streaming(
      "/v1/sessions/" + session + "/execute",
      R"({"code":"package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"streamed\") }\n"})",
      [&](const std::string& line) { lines.push_back(line); });
  CHECK(status == 200);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == R"({"progress":{"phase":"setup","detail":"starting a sandbox"}})");
  CHECK(lines[1] == R"({"progress":{"phase":"build","detail":"compile and link"}})");
  CHECK(lines[2] == R"({"progress":{"phase":"run","detail":"running the program"}})");
  CHECK(lines[3] == R"({"output":{"stream":"stdout","text":"streamed\n"}})");
  CHECK(lines[4].starts_with(R"({"result":{"call_id":)"));
  CHECK(lines[4].find(R"("stdout":"streamed\n")") != std::string::npos);

  std::vector<std::string> error_lines;
  daemon.post_streaming("/v1/sessions/" + session + "/execute", R"({"files":{"../x.go":"package main"}})",
                 [&](const std::string& line) { error_lines.push_back(line); });
  REQUIRE(error_lines.size() == 1);
  CHECK(error_lines[0].starts_with(R"({"error":{"code":"invalid_input")"));
}

TEST_CASE("cancelling a running call stops it promptly and keeps the session usable") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  CHECK(daemon.json(daemon.post("/v1/sessions/" + session + "/cancel", ""))["cancelled"].GetBool() == false);
  std::string last;
  auto started = std::chrono::steady_clock::now();
  std::thread call([&] {
    daemon.post_streaming("/v1/sessions/" + session + "/execute", kSleeper,
                   [&](const std::string& line) {
                     last = line;
                     if (line.find(R"("phase":"run")") != std::string::npos) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(200));
                       started = std::chrono::steady_clock::now();
                       const auto r = daemon.post("/v1/sessions/" + session + "/cancel", "");
                       CHECK(r.body == R"({"cancelled":true})");
                     }
                   });
  });
  call.join();
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(last.starts_with(R"({"error":{"code":"cancelled")"));
  CHECK(waited < std::chrono::seconds(30));  // far below the program's minute: it was stopped
  // The session takes the next call.
  const auto next = daemon.execute(session, "package main\nfunc main() { println(\"after\") }\n");
  CHECK(json_string(next, "status") == "ok");
  CHECK(json_string(next, "stderr") == "after\n");
  const auto stats = daemon.json(daemon.get("/v1/stats"));
  CHECK(stats["calls"]["by_status"]["cancelled"].GetInt() == 1);
}

TEST_CASE("package docs come from go doc against the curated lockfile") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto docs = daemon.post("/v1/sessions/" + session + "/docs",
                                R"({"package":"cloud.google.com/go/storage","symbol":"NewClient"})");
  INFO(docs.body);
  REQUIRE(docs.status == 200);
  const auto doc = daemon.json(docs);
  CHECK(json_string(doc, "package") == "cloud.google.com/go/storage");
  CHECK(json_string(doc, "symbol") == "NewClient");
  CHECK(json_string(doc, "docs").find("func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)") !=
        std::string::npos);

  const auto not_curated = daemon.post("/v1/sessions/" + session + "/docs", R"({"package":"os/exec"})");
  CHECK(not_curated.status == 400);
  CHECK(not_curated.body.find("is not a curated package") != std::string::npos);
  const auto bad_symbol = daemon.post("/v1/sessions/" + session + "/docs",
                                      R"({"package":"cloud.google.com/go/storage","symbol":"x; rm -rf /"})");
  CHECK(bad_symbol.status == 400);
  const auto unknown = daemon.post("/v1/sessions/" + session + "/docs",
                                   R"({"package":"cloud.google.com/go/storage","symbol":"NoSuchThing"})");
  CHECK(unknown.status == 400);
  CHECK(unknown.body.find("no symbol NoSuchThing") != std::string::npos);
}
