#include "recording_tls_peer.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace kg::test {
namespace {

// The value of header `name` (lower case, with its colon) in `head`, case-insensitively.
std::string header_value(const std::string& head, const std::string& name) {
  std::string lower = head;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto at = lower.find("\r\n" + name);
  if (at == std::string::npos) return {};
  const auto start = head.find_first_not_of(' ', at + 2 + name.size());
  if (start == std::string::npos) return {};
  return head.substr(start, head.find("\r\n", start) - start);
}

std::string http_answer(const PeerAnswer& answer) {
  return "HTTP/1.1 " + std::to_string(answer.status) + " " + answer.reason +
         "\r\nContent-Type: " + answer.content_type +
         "\r\nContent-Length: " + std::to_string(answer.body.size()) + "\r\n\r\n" + answer.body;
}

}  // namespace

RecordingTlsPeer::RecordingTlsPeer(TlsListener listener, Answer answer)
    : listener_(std::move(listener)), answer_(std::move(answer)) {
  context_ = SSL_CTX_new(TLS_server_method());
  if (context_ == nullptr ||
      SSL_CTX_use_certificate_file(context_, listener_.certificate.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_use_PrivateKey_file(context_, listener_.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    SSL_CTX_free(context_);
    throw std::runtime_error("RecordingTlsPeer: cannot load " + listener_.certificate.string() +
                             " and " + listener_.key.string());
  }
  acceptor_ = std::thread([this] { accept_loop(); });
}

RecordingTlsPeer::~RecordingTlsPeer() {
  stopping_ = true;
  acceptor_.join();
  for (auto& connection : connections_) connection.join();
  SSL_CTX_free(context_);
}

std::vector<std::string> RecordingTlsPeer::authorizations() const {
  const std::lock_guard lock(mutex_);
  return authorizations_;
}

void RecordingTlsPeer::accept_loop() {
  while (!stopping_) {
    pollfd entry{listener_.fd, POLLIN, 0};
    if (::poll(&entry, 1, 100) != 1) continue;
    const int fd = ::accept(listener_.fd, nullptr, nullptr);
    if (fd >= 0) connections_.emplace_back([this, fd] { serve(fd); });
  }
}

void RecordingTlsPeer::serve(int fd) {
  timeval timeout{2, 0};  // an idle kept-alive connection checks here whether the peer stops
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  SSL* ssl = SSL_new(context_);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1) {
    std::string buffer;
    char chunk[4096];
    while (!stopping_) {
      // A whole request: its head, and its body when it names a Content-Length (skipped).
      const auto end = buffer.find("\r\n\r\n");
      std::size_t whole = std::string::npos;
      if (end != std::string::npos) {
        const std::string length = header_value(buffer.substr(0, end + 4), "content-length:");
        whole = end + 4 + std::strtoul(length.c_str(), nullptr, 10);
      }
      if (whole == std::string::npos || buffer.size() < whole) {
        const int got = SSL_read(ssl, chunk, sizeof chunk);
        if (got <= 0) {
          if (stopping_ || SSL_get_error(ssl, got) != SSL_ERROR_SYSCALL || errno != EAGAIN) break;
          continue;
        }
        buffer.append(chunk, static_cast<std::size_t>(got));
        continue;
      }
      PeerRequest request;
      request.head = buffer.substr(0, end + 4);
      request.authorization = header_value(request.head, "authorization:");
      buffer.erase(0, whole);
      record(request);
      const std::string answer = http_answer(answer_(request));
      SSL_write(ssl, answer.data(), static_cast<int>(answer.size()));
    }
  }
  SSL_free(ssl);
  ::close(fd);
}

void RecordingTlsPeer::record(const PeerRequest& request) {
  const std::lock_guard lock(mutex_);
  authorizations_.push_back(request.authorization);
}

}  // namespace kg::test
