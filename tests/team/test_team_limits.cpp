// Team mode under abuse from one client address (docs/team-mode.md, "Slow and unknown
// clients"): hundreds of slow-loris connections do not keep a signed-in user waiting and are
// closed at their deadline; requests without sign-in are limited per address; a registration
// flood blocks neither another address nor a client registered before it. The attacker is
// 127.0.0.2 (and .3, .4), the daemon and its users 127.0.0.1. The ten-minute expiry of unused
// registrations is tests/unit/team/test_registration_limits.cpp (a clock the test moves).
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "http_sign_in.hpp"
#include "mock_oidc_provider.hpp"
#include "source_bound_client.hpp"
#include "team_daemon.hpp"

namespace kg::test {
namespace {

using namespace std::chrono_literals;

std::string oauth_keys(const MockOidcProvider& provider, const std::string& team_keys,
                       const std::string& oauth_extra = "") {
  return "auth = oauth\n"
         "[oauth]\n"
         "issuer = " + provider.issuer() + "\n"
         "client_id = kode-gopher-team-test\n"
         "allowed_users = alice@example.com\n" + oauth_extra +
         "[team]\n"
         "run_as = daemon\n" + team_keys;
}

void raise_descriptor_limit(rlim_t wanted) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < wanted) {
    limit.rlim_cur = std::min(wanted, limit.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Connections from `source` that each sent the start of a request and trickle one more header
// byte now and then, for as long as they live.
class SlowLoris {
 public:
  SlowLoris(const std::string& source, int port, int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_from(source, port);
      REQUIRE(fd >= 0);
      const std::string start = "POST /oauth/register HTTP/1.1\r\nHost: 127.0.0.1:" +
                                std::to_string(port) + "\r\nX-Slow: ";
      ::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
      fds_.push_back(fd);
    }
    trickler_ = std::thread([this] {
      while (!stop_) {
        for (int fd : fds_) {
          // A connection the server answered (a refusal) is left alone, as a client would
          // read its answer: more bytes after the server closed would reset it, answer unread.
          char byte;
          if (::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0) continue;
          ::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        for (int i = 0; i < 5 && !stop_; ++i) std::this_thread::sleep_for(100ms);
      }
    });
  }
  ~SlowLoris() {
    stop_ = true;
    trickler_.join();
    for (int fd : fds_) ::close(fd);
  }
  const std::vector<int>& fds() const { return fds_; }

 private:
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread trickler_;
};

std::string initialize_with(int port, const std::string& token) {
  const std::string body = initialize_request();
  return request_text(port, "POST", "/mcp",
                      "Authorization: Bearer " + token +
                          "\r\nContent-Type: application/json\r\n"
                          "Accept: application/json, text/event-stream\r\n",
                      body);
}

}  // namespace

TEST_CASE("hundreds of slow connections from one address do not keep a signed-in user waiting") {
  raise_descriptor_limit(4096);
  MockOidcProvider provider;
  // 512 threads serve; 700 slow connections would hold every one of them without the limits.
  TeamDaemon team(oauth_keys(provider, "header_timeout_s = 2\n"), "", false, false);
  const std::string token = sign_in_over_http(team.probe(), team.url, "alice@example.com");

  SlowLoris attack("127.0.0.2", team.port, 700);
  std::this_thread::sleep_for(300ms);  // the daemon has accepted them all

  // The signed-in user is served at once.
  const auto started = std::chrono::steady_clock::now();
  const RawAnswer served = exchange_from("127.0.0.1", team.port, initialize_with(team.port, token), 5s);
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(served.text);
  CHECK(served.status == 200);
  CHECK(took < 3s);

  // The connections over the address's 64 were answered 429 with Retry-After at once.
  // (The kernel's listen queue may hold some for a moment: look again until one second on.)
  int refused = 0;
  std::string refusal;
  std::vector<bool> answered(attack.fds().size(), false);
  const auto look_until = std::chrono::steady_clock::now() + 1s;
  do {
    for (std::size_t i = 0; i < attack.fds().size(); ++i) {
      if (answered[i]) continue;
      const RawAnswer answer = read_answer(attack.fds()[i], 0ms);
      if (answer.status == 429) {
        answered[i] = true;
        ++refused;
        refusal = answer.text;
      }
    }
    std::this_thread::sleep_for(50ms);
  } while (std::chrono::steady_clock::now() < look_until);
  int closed_silently = 0, waiting = 0;
  for (std::size_t i = 0; i < attack.fds().size(); ++i) {
    if (answered[i]) continue;
    const RawAnswer answer = read_answer(attack.fds()[i], 0ms);
    if (answer.closed) ++closed_silently; else ++waiting;
  }
  INFO("refused: " << refused << ", closed without an answer: " << closed_silently
                    << ", waiting: " << waiting);
  // At most the address's 64 are held; every other one is refused or closed, none waits. (Some
  // refusals arrive as a bare close: not yet understood, see docs/security.md's known gaps.)
  CHECK(waiting <= 64);
  CHECK(refused >= 300);
  CHECK(refusal.find("Retry-After: ") != std::string::npos);
  CHECK(refusal.find("max_connections_per_address") != std::string::npos);

  // The 64 it took are closed within their header deadline (2 s) though they keep sending.
  std::this_thread::sleep_for(2s);
  int open = 0;
  for (int fd : attack.fds()) {
    if (!read_answer(fd, 1ms).closed) ++open;
  }
  CHECK(open == 0);
  CHECK(exchange_from("127.0.0.1", team.port, initialize_with(team.port, token), 5s).status == 200);
}

TEST_CASE("requests without sign-in are limited per address: 429 with Retry-After, others unaffected") {
  MockOidcProvider provider;
  TeamDaemon team(oauth_keys(provider, "unauthenticated_per_minute = 20\n"), "", false, false);
  const std::string metadata = request_text(team.port, "GET", "/.well-known/oauth-authorization-server");
  for (int i = 0; i < 20; ++i) REQUIRE(exchange_from("127.0.0.4", team.port, metadata).status == 200);
  const RawAnswer limited = exchange_from("127.0.0.4", team.port, metadata);
  INFO(limited.text);
  CHECK(limited.status == 429);
  CHECK_FALSE(limited.header("retry-after").empty());
  CHECK(limited.body().find("unauthenticated_per_minute") != std::string::npos);
  CHECK(exchange_from("127.0.0.5", team.port, metadata).status == 200);
}

TEST_CASE("a registration flood from one address blocks neither another address nor a registered client") {
  MockOidcProvider provider;
  // Requests without sign-in are not what stops this flood here: registrations_per_hour is.
  TeamDaemon team(oauth_keys(provider, "unauthenticated_per_minute = 100000\n"), "", false, false);
  const std::string registered = register_http_client(team.probe(), "before the flood");

  const std::string registration = request_text(
      team.port, "POST", "/oauth/register", "Content-Type: application/json\r\n",
      R"({"client_name":"flood","redirect_uris":[")" + std::string(kSignInRedirect) + R"("]})");
  int created = 0, limited = 0;
  RawAnswer last;
  for (int i = 0; i < 1100; ++i) {
    last = exchange_from("127.0.0.2", team.port, registration);
    created += last.status == 201;
    limited += last.status == 429;
  }
  INFO(last.text);
  CHECK(created == 30);  // [oauth] registrations_per_hour
  CHECK(limited == 1100 - 30);
  CHECK_FALSE(last.header("retry-after").empty());
  CHECK(last.body().find("registrations_per_hour") != std::string::npos);

  // Another address registers at once.
  const RawAnswer other = exchange_from("127.0.0.3", team.port, registration);
  INFO(other.text);
  CHECK(other.status == 201);
  // The client registered before the flood still starts a sign-in (to the provider).
  const ProbeAnswer authorize = team.probe().request(
      "GET", "/oauth/authorize?" + authorize_query(team.url, registered, "verifier-0123456789-abcdefghijklmnopqrstuvwxyz", "alice@example.com"),
      "", {});
  INFO(authorize.body);
  CHECK(authorize.status == 302);
  CHECK(authorize.header("location").rfind(provider.issuer(), 0) == 0);
}

}  // namespace kg::test
