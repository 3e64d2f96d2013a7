#include "source_bound_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

namespace kg::test {

int connect_from(const std::string& source_ip, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  ::inet_pton(AF_INET, source_ip.c_str(), &source.sin_addr);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &target.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string RawAnswer::header(const std::string& lowercase_name) const {
  const auto head_end = text.find("\r\n\r\n");
  std::size_t line = text.find("\r\n");
  while (line != std::string::npos && line < head_end) {
    const std::size_t start = line + 2;
    const std::size_t end = text.find("\r\n", start);
    const std::string entry = text.substr(start, end - start);
    const auto colon = entry.find(':');
    if (colon != std::string::npos) {
      std::string name = entry.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (name == lowercase_name) {
        const auto value = entry.find_first_not_of(' ', colon + 1);
        return value == std::string::npos ? "" : entry.substr(value);
      }
    }
    line = end;
  }
  return "";
}

std::string RawAnswer::body() const {
  const auto head_end = text.find("\r\n\r\n");
  return head_end == std::string::npos ? "" : text.substr(head_end + 4);
}

RawAnswer read_answer(int fd, std::chrono::milliseconds timeout) {
  RawAnswer answer;
  const auto until = std::chrono::steady_clock::now() + timeout;
  char buffer[16384];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    // Polled at least once, even when the time is up: what has arrived already is read.
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) <= 0) break;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      answer.closed = true;
      break;
    }
    answer.text.append(buffer, static_cast<std::size_t>(got));
  }
  if (answer.text.rfind("HTTP/1.", 0) == 0 && answer.text.size() >= 12) {
    answer.status = std::atoi(answer.text.substr(9, 3).c_str());
  }
  return answer;
}

RawAnswer exchange_from(const std::string& source_ip, int port, const std::string& request,
                        std::chrono::milliseconds timeout) {
  const int fd = connect_from(source_ip, port);
  if (fd < 0) return {};
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t wrote = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (wrote <= 0) break;
    sent += static_cast<std::size_t>(wrote);
  }
  RawAnswer answer = read_answer(fd, timeout);
  ::close(fd);
  return answer;
}

std::string request_text(int port, const std::string& method, const std::string& path,
                         const std::string& extra_headers, const std::string& body) {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nConnection: close\r\n" +
         extra_headers + (body.empty() && method == "GET" ? std::string()
                          : "Content-Length: " + std::to_string(body.size()) + "\r\n") +
         "\r\n" + body;
}

}  // namespace kg::test
