// The runtime-API transports of a Kubernetes sandbox, against a real HTTP server on loopback:
// file operations retried on 5xx and connection errors (bounded, with backoff), /execute never;
// interrupt() stops the request in flight and every later one.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "interruptible_http_client.hpp"
#include "retrying_http_client.hpp"
#include "tcp_http_client.hpp"
#include "test_support.hpp"

using namespace kg::sandbox;
using kg::test::Answer;
using kg::test::LoopbackHttpServer;
using kg::test::SeenRequest;
using Clock = std::chrono::steady_clock;

namespace {

// Fast retries, so the test measures counts, not time.
RetryPolicy quick() {
  RetryPolicy policy;
  policy.first_delay = std::chrono::milliseconds(10);
  policy.max_delay = std::chrono::milliseconds(40);
  return policy;
}

std::unique_ptr<kg::net::HttpClient> to(const LoopbackHttpServer& server) {
  return std::make_unique<kg::net::TcpHttpClient>("127.0.0.1", server.port());
}

}  // namespace

TEST_CASE("a file operation answered 503 is retried until it succeeds") {
  LoopbackHttpServer server([](const SeenRequest&, int index) {
    return index < 2 ? Answer{503, R"({"detail":"no endpoints"})"} : Answer{200, R"({"exists":true})"};
  });
  RetryingHttpClient client(to(server), quick());
  const auto response = client.request("GET", "/exists/main.go", "", {});
  CHECK(response.status == 200);
  CHECK(response.body == R"({"exists":true})");
  CHECK(server.seen().size() == 3);
}

TEST_CASE("at most six attempts, then the last answer stands") {
  for (const int status : {500, 502, 503, 504}) {
    CAPTURE(status);
    LoopbackHttpServer server([&](const SeenRequest&, int) { return Answer{status, R"({"detail":"down"})"}; });
    RetryingHttpClient client(to(server), quick());
    CHECK(client.request("POST", "/upload-tar?replace=1", "tar", {}).status == status);
    CHECK(server.seen().size() == 6);
  }
}

TEST_CASE("other answers are not retried") {
  for (const int status : {400, 403, 404, 413}) {
    CAPTURE(status);
    LoopbackHttpServer server([&](const SeenRequest&, int) { return Answer{status, "{}"}; });
    RetryingHttpClient client(to(server), quick());
    CHECK(client.request("GET", "/download/x", "", {}).status == status);
    CHECK(server.seen().size() == 1);
  }
}

TEST_CASE("/execute is never retried, whatever the answer") {
  LoopbackHttpServer server([](const SeenRequest&, int) { return Answer{503, R"({"detail":"busy"})"}; });
  RetryingHttpClient client(to(server), quick());
  CHECK(client.request("POST", "/execute", R"({"command":"go build"})", {}).status == 503);
  CHECK(server.seen().size() == 1);
  CHECK_FALSE(RetryingHttpClient::retriable("POST", "/execute"));
  CHECK_FALSE(RetryingHttpClient::retriable("POST", "/execute?x=1"));
  CHECK(RetryingHttpClient::retriable("GET", "/download/a%2Fb"));
  CHECK(RetryingHttpClient::retriable("POST", "/upload"));
}

TEST_CASE("connection errors are retried, then thrown") {
  std::uint16_t port = 0;
  {
    LoopbackHttpServer gone([](const SeenRequest&, int) { return Answer{}; });
    port = gone.port();
  }  // nothing listens there now
  RetryingHttpClient files(std::make_unique<kg::net::TcpHttpClient>("127.0.0.1", port), quick());
  const auto started = Clock::now();
  CHECK_THROWS_AS(files.request("GET", "/list/.", "", {}), kg::net::HttpTransportError);
  // Five waits of at least 7.5, 15, 30, 30, 30 ms (10 ms doubling to 40, less 25 %).
  CHECK(Clock::now() - started >= std::chrono::milliseconds(110));

  RetryingHttpClient execute(std::make_unique<kg::net::TcpHttpClient>("127.0.0.1", port), quick());
  const auto once = Clock::now();
  CHECK_THROWS_AS(execute.request("POST", "/execute", "{}", {}), kg::net::HttpTransportError);
  CHECK(Clock::now() - once < std::chrono::milliseconds(100));
}

TEST_CASE("the default backoff: 0.5 s doubling to 8 s, within 25 %") {
  RetryingHttpClient client(std::make_unique<kg::net::TcpHttpClient>("127.0.0.1", 1));
  const double expected[] = {500, 1000, 2000, 4000, 8000, 8000};
  for (int attempt = 1; attempt <= 6; ++attempt) {
    CAPTURE(attempt);
    for (int sample = 0; sample < 50; ++sample) {
      const auto delay = static_cast<double>(client.delay_after(attempt).count());
      CHECK(delay >= expected[attempt - 1] * 0.75 - 1);
      CHECK(delay <= expected[attempt - 1] * 1.25);
    }
  }
}

TEST_CASE("interrupt() fails the request in flight at once, and every later one") {
  LoopbackHttpServer server([](const SeenRequest&, int) {
    std::this_thread::sleep_for(std::chrono::seconds(3));  // a long build
    return Answer{200, R"({"stdout":"","stderr":"","exit_code":0})"};
  });
  InterruptibleHttpClient client(std::make_unique<RetryingHttpClient>(to(server), quick()));
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    client.interrupt();
  });
  const auto started = Clock::now();
  kg::net::HttpRequestOptions options;
  options.timeout = std::chrono::seconds(30);
  CHECK_THROWS_AS(client.request("POST", "/execute", "{}", options), kg::net::HttpTransportError);
  CHECK(Clock::now() - started < std::chrono::milliseconds(2000));
  stopper.join();
  const auto later = Clock::now();
  CHECK_THROWS_WITH_AS(client.request("GET", "/exists/x", "", {}), doctest::Contains("interrupted"),
                       kg::net::HttpTransportError);
  CHECK(Clock::now() - later < std::chrono::milliseconds(100));
}

TEST_CASE("interrupt() also cancels the caller's own canceller, and stops retries") {
  LoopbackHttpServer server([](const SeenRequest&, int) { return Answer{503, "{}"}; });
  RetryPolicy slow;
  slow.first_delay = std::chrono::seconds(5);
  InterruptibleHttpClient client(std::make_unique<RetryingHttpClient>(to(server), slow));
  kg::net::RequestCanceller session_canceller;
  kg::net::HttpRequestOptions options;
  options.canceller = &session_canceller;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    client.interrupt();
  });
  const auto started = Clock::now();
  CHECK_THROWS_AS(client.request("GET", "/download/f", "", options), kg::net::HttpTransportError);
  CHECK(Clock::now() - started < std::chrono::milliseconds(2000));
  CHECK(session_canceller.cancelled());
  CHECK(server.seen().size() == 1);
  stopper.join();
}
