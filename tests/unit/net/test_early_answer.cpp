// A server may answer before it has read the whole request — the sandbox server refuses an
// oversized upload with 413 as soon as it sees Content-Length, then closes. The client must
// still report that answer, not a broken pipe.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "unix_http_client.hpp"

namespace {

// Listens on a Unix socket in a fresh folder; answer_early() serves one connection: reads only
// the request's headers, answers 413 and closes.
class EarlyAnsweringServer {
 public:
  EarlyAnsweringServer() {
    char pattern[] = "/tmp/kg-net-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    dir_ = pattern;
    path_ = dir_ + "/s.sock";
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 1) == 0);
  }
  ~EarlyAnsweringServer() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    std::filesystem::remove_all(dir_);
  }
  const std::string& path() const { return path_; }

  void answer_early() {
    thread_ = std::thread([this] {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string seen;
      char buffer[1024];
      while (seen.find("\r\n\r\n") == std::string::npos) {
        const ssize_t got = ::read(client, buffer, sizeof buffer);
        if (got <= 0) break;
        seen.append(buffer, static_cast<std::size_t>(got));
      }
      const std::string body = R"({"detail":"the upload is over 1 MiB"})";
      const std::string answer = "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\n"
                                 "Content-Length: " + std::to_string(body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body;
      [[maybe_unused]] auto ignored = ::write(client, answer.data(), answer.size());
      ::close(client);  // with most of the request unread
    });
  }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  std::thread thread_;
};

}  // namespace

TEST_CASE("an answer sent before the request body was read is still the response") {
  EarlyAnsweringServer server;
  server.answer_early();
  const kg::net::UnixHttpClient client(server.path());
  const std::string upload(16u << 20, 'x');  // far more than the socket buffers hold
  const auto response = client.request("POST", "/upload", upload, {});
  CHECK(response.status == 413);
  CHECK(response.body == R"({"detail":"the upload is over 1 MiB"})");
}
