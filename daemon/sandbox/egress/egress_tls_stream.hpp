// One TLS connection of the egress proxy, either side: the program's (the proxy is the server,
// with a certificate from EgressTls) or the upstream's (the proxy is the client and verifies the
// real server's chain and name). The socket is made non-blocking and every wait is a poll that
// gives up when the proxy stops (checked twice a second) or nothing arrives for idle_timeout, so
// a connection handler never hangs the proxy's shutdown.
//
// Bytes a client sent before the handshake began (the ClientHello the proxy already read to
// check its server name) are handed in as `already_read` and fed to OpenSSL first.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::sandbox {

// A TLS connection failed: the handshake (with OpenSSL's reason, such as "certificate verify
// failed"), a read or write, the idle timeout or the proxy stopping.
class TlsStreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TlsWaits {
  const std::atomic<bool>* stopping = nullptr;
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(5)};
};

class TlsStream {
 public:
  // Server side: completes the handshake with the program. Throws TlsStreamError.
  static TlsStream accept(int fd, SSL_CTX* context, std::string already_read, TlsWaits waits,
                          std::chrono::milliseconds handshake_timeout);
  // Client side: completes the handshake with `host_name` (SNI), verifying its certificate
  // chain and that it names host_name, offering ALPN `alpn` (wire format; empty: none).
  // Throws TlsStreamError naming the reason (OpenSSL's verify result when it is that).
  static TlsStream connect(int fd, SSL_CTX* context, const std::string& host_name,
                           std::string_view alpn, TlsWaits waits);

  TlsStream(TlsStream&& other) noexcept;
  TlsStream& operator=(TlsStream&&) = delete;
  TlsStream(const TlsStream&) = delete;
  ~TlsStream();

  // Up to `size` bytes; 0 when the peer closed. Throws TlsStreamError.
  std::size_t read_some(char* buffer, std::size_t size);
  // Without waiting: the bytes there are (> 0), 0 when the peer closed, -1 when nothing is
  // there yet (poll fd() for reading, unless buffered() says OpenSSL holds some). For event
  // loops that serve both sides of a connection on one thread (HTTP/2).
  long read_ready(char* buffer, std::size_t size);
  bool buffered() const;
  int fd() const noexcept { return fd_; }
  void write_all(std::string_view bytes);
  // Sends close_notify; never throws.
  void close() noexcept;
  // The protocol ALPN selected ("http/1.1", "h2"), or "" when none was.
  std::string alpn() const;

 private:
  TlsStream(SSL* ssl, int fd, TlsWaits waits) : ssl_(ssl), fd_(fd), waits_(waits) {}
  // Waits for the fd as SSL_get_error asks; throws on timeout or stop.
  void wait_for(int ssl_error, std::chrono::milliseconds timeout, const char* doing);
  void handshake(bool server, std::chrono::milliseconds timeout);

  SSL* ssl_;
  int fd_;
  TlsWaits waits_;
  BIO* prefix_ = nullptr;  // what was read before the handshake, until it is used up
};

}  // namespace kg::sandbox
