// kg::net::UnixHttpStream against the real daemon: lines arrive one by one, an error answer is
// collected whole, and another thread can cut a request off through its RequestCanceller.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "daemon_fixture.hpp"
#include "unix_http_stream.hpp"

using kg::test::DaemonFixture;

namespace {

constexpr const char* kSleeper =
    R"({"code":"package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(time.Minute) }\n"})";

kg::net::HttpRequestOptions long_wait() {
  kg::net::HttpRequestOptions options;
  options.timeout = std::chrono::minutes(20);  // a first start may prewarm the Go build cache
  return options;
}

}  // namespace

TEST_SUITE_BEGIN("clients");

TEST_CASE("UnixHttpStream hands over NDJSON lines, collects other answers, and can be cancelled") {
  DaemonFixture daemon;
  daemon.start();
  const std::string session = daemon.open_session();
  const kg::net::UnixHttpStream stream(daemon.socket_path());

  SUBCASE("a streamed execute: progress lines, then the result line") {
    std::vector<std::string> lines;
    const auto response = stream.request(
        "POST", "/v1/sessions/" + session + "/execute",
        R"({"code":"package main\n\nfunc main() { println(\"streamed\") }\n"})", long_wait(),
        [&](std::string_view line) { lines.emplace_back(line); });
    CHECK(response.status == 200);
    CHECK(response.content_type == "application/x-ndjson");
    CHECK(response.body.empty());
    REQUIRE(lines.size() == 5);
    CHECK(lines[0] == R"({"progress":{"phase":"setup","detail":"starting a sandbox"}})");
    CHECK(lines[1] == R"({"progress":{"phase":"build","detail":"compile and link"}})");
    CHECK(lines[2] == R"({"progress":{"phase":"run","detail":"running the program"}})");
    // println writes to stderr, streamed as the program prints it.
    CHECK(lines[3] == R"({"output":{"stream":"stderr","text":"streamed\n"}})");
    CHECK(lines[4].starts_with(R"({"result":{"call_id":)"));
  }
  SUBCASE("answers that are not NDJSON (an error status, plain JSON) come back whole") {
    int calls = 0;
    const auto refused = stream.request("POST", "/v1/sessions", "not json", long_wait(),
                                        [&](std::string_view) { ++calls; });
    CHECK(refused.status == 400);
    CHECK(refused.body.starts_with(R"({"error":{"code":"bad_request")"));
    const auto health =
        stream.request("GET", "/v1/health", "", long_wait(), [&](std::string_view) { ++calls; });
    CHECK(health.status == 200);
    CHECK(health.body.starts_with(R"({"status":"ok")"));
    CHECK(calls == 0);
  }
  SUBCASE("another thread cancels the request in flight") {
    kg::net::RequestCanceller canceller;
    auto options = long_wait();
    options.canceller = &canceller;
    std::thread cancelling;
    std::atomic<bool> ran = false;
    CHECK_THROWS_WITH_AS(
        stream.request("POST", "/v1/sessions/" + session + "/execute", kSleeper, options,
                       [&](std::string_view line) {
                         if (line.find(R"("phase":"run")") == std::string_view::npos) return;
                         ran = true;
                         cancelling = std::thread([&] { canceller.cancel(); });
                       }),
        ("Request POST /v1/sessions/" + session + "/execute was cancelled").c_str(),
        kg::net::HttpTransportError);
    cancelling.join();
    CHECK(ran);
    CHECK(canceller.cancelled());
    // The daemon still runs the program: stop it there too, so the fixture stops promptly.
    daemon.post("/v1/sessions/" + session + "/cancel", "");
  }
  daemon.stop_gracefully();
}

TEST_SUITE_END();
