// The egress proxy's limits per sandbox (docs/egress.md, "Limits per sandbox"), on real
// EgressProxy objects made here as LocalSandboxProvider makes them, one per sandbox, in the
// network this process made (egress_world.hpp): eight sandboxes full of idle connections do not
// delay a ninth; the connection past a sandbox's cap is answered 429; a request head and a
// tunnel's ClientHello each have one deadline that trickled bytes cannot stretch; a relay where
// nothing moves is closed.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_loggers.hpp"
#include "egress_proxy.hpp"
#include "egress_world.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using sandbox::testing::Fd;

sandbox::EgressAllowlist test_allowlist() {
  return sandbox::EgressAllowlist::parse(
      {kStorageHost, "198.51.100.1"},
      {kStorageTlsPort, kStoragePort, world().internet_port});
}

// A folder of sockets for this test's proxies, removed afterwards.
struct ProxyFolder {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("kg-egress-limits-" + std::to_string(::getpid()));
  ProxyFolder() { std::filesystem::create_directories(path); }
  ~ProxyFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string socket(int n) const { return (path / ("egress-" + std::to_string(n) + ".sock")).string(); }
};

Fd connect_to(const std::string& socket_path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un where{};
  where.sun_family = AF_UNIX;
  socket_path.copy(where.sun_path, sizeof where.sun_path - 1);
  REQUIRE(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0);
  return fd;
}

void send_text(int fd, const std::string& text) {
  REQUIRE(::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size()));
}

// What the proxy sends until it closes or `wait` passes; `closed` says which.
std::string read_until_closed(int fd, std::chrono::milliseconds wait, bool* closed = nullptr) {
  std::string got;
  const auto end = Clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    pollfd entry{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&entry, 1, static_cast<int>(left.count())) != 1) break;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) {
      if (closed) *closed = true;
      return got;
    }
    got.append(buffer, static_cast<std::size_t>(n));
  }
  if (closed) *closed = false;
  return got;
}

// "403" of "HTTP/1.1 403 Forbidden\r\n...".
std::string status_code(const std::string& answer) {
  return answer.size() >= 12 && answer.starts_with("HTTP/1.") ? answer.substr(9, 3) : answer;
}

}  // namespace

TEST_CASE("hostile egress limits: eight sandboxes full of idle connections do not delay a ninth") {
  ProxyFolder folder;
  RecordingLogger logger;
  std::vector<std::unique_ptr<sandbox::EgressProxy>> proxies;
  for (int n = 0; n < 9; ++n) {
    proxies.push_back(std::make_unique<sandbox::EgressProxy>(
        "sandbox-" + std::to_string(n), folder.socket(n), std::nullopt, test_allowlist(), logger));
  }
  const int cap = sandbox::EgressProxyLimits{}.max_connections;
  // Every connection of eight sandboxes held open: a request head that never ends.
  std::vector<Fd> idle;
  for (int n = 0; n < 8; ++n) {
    for (int i = 0; i < cap; ++i) {
      idle.push_back(connect_to(folder.socket(n)));
      send_text(idle.back().get(), "CONNECT ");
    }
  }
  std::this_thread::sleep_for(300ms);  // every one of them is being read by now
  // The ninth sandbox is answered at once (a refusal: the quickest full answer there is).
  const auto asked = Clock::now();
  auto ninth = connect_to(folder.socket(8));
  send_text(ninth.get(), std::string("CONNECT ") + kUnlistedHost + ":443 HTTP/1.1\r\n\r\n");
  const std::string answer = read_until_closed(ninth.get(), 5s);
  CHECK(Clock::now() - asked < 2s);
  CHECK(status_code(answer) == "403");
  // One more connection on a full sandbox: 429 at once, and the refusal is reported.
  auto one_more = connect_to(folder.socket(0));
  const std::string refused = read_until_closed(one_more.get(), 5s);
  CHECK(status_code(refused) == "429");
  CHECK(refused.find("this sandbox already has 32 connections open") != std::string::npos);
  const auto refusals = proxies[0]->end_call().refusals;
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0] == "egress refused connection: this sandbox already has 32 connections open "
                       "through the proxy (the most it may)");
  idle.clear();
  proxies.clear();  // each stops within half a second
}

TEST_CASE("hostile egress limits: a trickled head, a silent tunnel and an idle relay are cut") {
  ProxyFolder folder;
  RecordingLogger logger;
  sandbox::EgressProxy proxy("sandbox-deadlines", folder.socket(0), std::nullopt, test_allowlist(),
                             logger);
  sandbox::EgressProxyLimits quick;
  quick.head_timeout = 1s;
  quick.idle_timeout = 1s;
  sandbox::EgressProxy quick_proxy("sandbox-idle", folder.socket(1), std::nullopt, test_allowlist(),
                                   logger, quick);
  const auto start = Clock::now();
  // A head trickled one byte a second never completes, and is answered 408 at the deadline.
  auto trickle = connect_to(folder.socket(0));
  // A tunnel to a name that never sends its ClientHello is cut at the same deadline.
  auto silent = connect_to(folder.socket(0));
  send_text(silent.get(), std::string("CONNECT ") + kStorageHost + ":" +
                              std::to_string(kStorageTlsPort) + " HTTP/1.1\r\n\r\n");
  // A tunnel to a listed address (where a server may speak first) that nobody uses: closed
  // once idle, though neither end hangs up (the peer's listener never answers).
  auto idle = connect_to(folder.socket(1));
  send_text(idle.get(), "CONNECT 198.51.100.1:" + std::to_string(world().internet_port) +
                            " HTTP/1.1\r\n\r\n");
  std::string trickled = "CONNECT " + std::string(kStorageHost) + ":443 HTTP/1.1\r\nX: ";
  bool trickle_closed = false;
  std::string trickle_answer;
  for (std::size_t i = 0; i < trickled.size() && !trickle_closed; ++i) {
    if (::send(trickle.get(), &trickled[i], 1, MSG_NOSIGNAL) != 1) break;
    trickle_answer += read_until_closed(trickle.get(), 1s, &trickle_closed);
  }
  if (!trickle_closed) trickle_answer += read_until_closed(trickle.get(), 5s, &trickle_closed);
  const auto trickle_took = Clock::now() - start;
  CHECK(trickle_closed);
  CHECK(status_code(trickle_answer) == "408");
  CHECK(trickle_took >= 9s);
  CHECK(trickle_took < 13s);

  bool silent_closed = false;
  const std::string silent_answer = read_until_closed(silent.get(), 5s, &silent_closed);
  CHECK(silent_closed);
  CHECK(status_code(silent_answer) == "200");
  CHECK(Clock::now() - start < 14s);

  bool idle_closed = false;
  const std::string idle_answer = read_until_closed(idle.get(), 5s, &idle_closed);
  CHECK(idle_closed);
  CHECK(status_code(idle_answer) == "200");

  const auto refusals = proxy.end_call().refusals;
  CHECK(std::find(refusals.begin(), refusals.end(),
                  "egress refused request: No complete request head within 10 s") !=
        refusals.end());
  CHECK(std::find(refusals.begin(), refusals.end(),
                  std::string("egress refused CONNECT ") + kStorageHost +
                      ":443: no complete TLS ClientHello within 10 s") != refusals.end());
  CHECK(quick_proxy.end_call().refusals.empty());  // an idle relay is not a refusal
  sandbox::testing::TestNetwork::drain(world().internet_fd, 200ms);
}

}  // namespace kg::test::egress
