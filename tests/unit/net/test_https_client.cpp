// net::HttpsClient (lib/net/https_client.hpp) against a one-shot HTTP peer on loopback: what it
// sends, the cap on the answer, which plain http:// URLs each policy accepts, and that a URL's
// query (which may carry a token) never reaches a message. Certificate verification is
// tests/unit/creds/test_oauth_https.cpp's (a self-signed peer is refused).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "https_client.hpp"

namespace kg::net {
namespace {

using namespace std::chrono_literals;

// Accepts one connection on 127.0.0.1, keeps the request it reads, answers `answer`, closes.
class OneShotPeer {
 public:
  explicit OneShotPeer(std::string answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    port_ = ntohs(address.sin_port);
    REQUIRE(::listen(fd_, 1) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~OneShotPeer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // The request as received; complete once the client has its answer.
  const std::string& request() const { return request_; }

 private:
  void serve() {
    const int client = ::accept(fd_, nullptr, nullptr);
    if (client < 0) return;
    char buffer[4096];
    std::size_t wanted = std::string::npos;
    while (request_.size() < wanted) {
      const ssize_t got = ::read(client, buffer, sizeof buffer);
      if (got <= 0) break;
      request_.append(buffer, static_cast<std::size_t>(got));
      const auto head_end = request_.find("\r\n\r\n");
      if (head_end == std::string::npos) continue;
      const auto length_at = request_.find("Content-Length: ");
      const std::size_t body = length_at == std::string::npos || length_at > head_end
                                   ? 0
                                   : std::stoul(request_.substr(length_at + 16));
      wanted = head_end + 4 + body;
    }
    for (std::size_t sent = 0; sent < answer_.size();) {
      const ssize_t put = ::write(client, answer_.data() + sent, answer_.size() - sent);
      if (put <= 0) break;
      sent += static_cast<std::size_t>(put);
    }
    ::close(client);
  }

  std::string answer_;
  std::string request_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

std::string answer_with_body(const std::string& body) {
  return "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

HttpsRequest get(const std::string& url) {
  HttpsRequest request;
  request.url = url;
  return request;
}

std::string unreachable(const HttpsClient& client, const std::string& url) {
  try {
    client.send(get(url));
  } catch (const HttpsUnreachable& e) {
    return e.what();
  }
  return "answered";
}

TEST_CASE("https client: sends method, headers, content type and body; any status is an answer") {
  OneShotPeer peer(answer_with_body(R"({"ok":true})"));
  const HttpsClient client(5s, PlainHttp::loopback_only);
  HttpsRequest request = get(peer.url("/token?x=1"));
  request.method = "POST";
  request.headers = {{"Accept", "application/json"}};
  request.body = "a=1&b=2";
  request.content_type = "application/x-www-form-urlencoded";
  const auto answer = client.send(request);
  CHECK(answer.status == 201);
  CHECK(answer.body == R"({"ok":true})");
  CHECK(peer.request().rfind("POST /token?x=1 HTTP/1.1\r\n", 0) == 0);
  CHECK(peer.request().find("Accept: application/json\r\n") != std::string::npos);
  CHECK(peer.request().find("Content-Type: application/x-www-form-urlencoded\r\n") !=
        std::string::npos);
  CHECK(peer.request().find("Content-Length: 7\r\n") != std::string::npos);
  CHECK(peer.request().substr(peer.request().size() - 7) == "a=1&b=2");
}

TEST_CASE("https client: an answer over the cap is no answer, and the URL's query is not shown") {
  OneShotPeer peer(answer_with_body(std::string(2048, 'x')));
  const HttpsClient client(5s, PlainHttp::loopback_only, 1024);
  CHECK(unreachable(client, peer.url("/big?access_token=secret")) ==
        "cannot reach " + peer.url("/big") + ": I/O error: the answer is larger than 1 KiB");
}

TEST_CASE("https client: plain http only where the policy says, other schemes never") {
  const HttpsClient loopback_only(1s, PlainHttp::loopback_only);
  CHECK(unreachable(loopback_only, "http://192.0.2.1/x?token=t") ==
        "cannot reach http://192.0.2.1/x: Invalid argument: the URL must be https:// (plain "
        "http:// only to a loopback address)");
  CHECK(unreachable(loopback_only, "http://127.0.0.1.evil.example/x")
            .find("the URL must be https://") != std::string::npos);
  const HttpsClient any_host(1s, PlainHttp::any_host);
  CHECK(unreachable(any_host, "ftp://192.0.2.1/x") ==
        "cannot reach ftp://192.0.2.1/x: Invalid argument: the URL must start with https:// or "
        "http://");
  // Plain http to a host that is not loopback is tried (a documentation address: it fails to
  // connect or times out, but not for the policy).
  const std::string tried = unreachable(any_host, "http://192.0.2.1:9/x");
  CHECK(tried.rfind("cannot reach http://192.0.2.1:9/x: ", 0) == 0);
  CHECK(tried.find("the URL must") == std::string::npos);
}

}  // namespace
}  // namespace kg::net
