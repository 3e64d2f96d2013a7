// relay_both_ways (lib/net/socket_relay.hpp) on socket pairs: a side that has hung up does
// not make it spin, and a relay where nothing moves ends after its idle timeout.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "socket_relay.hpp"

namespace kg::net {
namespace {

using namespace std::chrono_literals;

struct Pair {
  int ends[2] = {-1, -1};
  Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) == 0); }
  ~Pair() {
    for (const int fd : ends) {
      if (fd >= 0) ::close(fd);
    }
  }
};

double thread_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace

TEST_CASE("relay: a side that hung up is not polled again (no busy loop)") {
  Pair client, upstream;
  std::atomic<bool> stopping{false};
  double cpu = 0;
  std::thread relay([&] {
    const double start = thread_cpu_seconds();
    relay_both_ways(client.ends[0], upstream.ends[0], stopping);
    cpu = thread_cpu_seconds() - start;
  });
  // The client hangs up entirely; upstream stays open and silent (a slow answer).
  ::close(client.ends[1]);
  client.ends[1] = -1;
  std::this_thread::sleep_for(1500ms);
  stopping = true;
  relay.join();
  CHECK(cpu < 0.2);
}

TEST_CASE("relay: ends once no byte has moved for the idle timeout") {
  Pair client, upstream;
  std::atomic<bool> stopping{false};
  const auto start = std::chrono::steady_clock::now();
  std::thread relay([&] { relay_both_ways(client.ends[0], upstream.ends[0], stopping, 700ms); });
  // Traffic keeps it open...
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(400ms);
    REQUIRE(::write(client.ends[1], "x", 1) == 1);
  }
  relay.join();  // ...then silence ends it, with neither side closed.
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took >= 1900ms);
  CHECK(took < 4s);
  char buffer[8];
  CHECK(::read(upstream.ends[1], buffer, sizeof buffer) == 3);
}

}  // namespace kg::net
