#include "egress_tls_stream.hpp"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <poll.h>

#include "egress_tls.hpp"

namespace kg::sandbox {
namespace {

constexpr std::chrono::milliseconds kPollSlice(500);

void make_non_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw TlsStreamError("Cannot make a proxied socket non-blocking");
  }
}

}  // namespace

TlsStream TlsStream::accept(int fd, SSL_CTX* context, std::string already_read, TlsWaits waits,
                            std::chrono::milliseconds handshake_timeout) {
  make_non_blocking(fd);
  SSL* ssl = SSL_new(context);
  if (ssl == nullptr) throw TlsStreamError("Cannot start TLS: " + openssl_errors());
  TlsStream stream(ssl, fd, waits);
  BIO* socket_bio = BIO_new_socket(fd, BIO_NOCLOSE);
  if (already_read.empty()) {
    SSL_set_bio(ssl, socket_bio, socket_bio);
  } else {
    // Reads come from what was already read until it runs out (then the socket takes over,
    // in wait_for); writes always go to the socket.
    stream.prefix_ = BIO_new(BIO_s_mem());
    BIO_write(stream.prefix_, already_read.data(), static_cast<int>(already_read.size()));
    BIO_set_mem_eof_return(stream.prefix_, -1);
    SSL_set_bio(ssl, stream.prefix_, socket_bio);
  }
  stream.handshake(true, handshake_timeout);
  return stream;
}

TlsStream TlsStream::connect(int fd, SSL_CTX* context, const std::string& host_name,
                             std::string_view alpn, TlsWaits waits) {
  make_non_blocking(fd);
  SSL* ssl = SSL_new(context);
  if (ssl == nullptr) throw TlsStreamError("Cannot start TLS: " + openssl_errors());
  TlsStream stream(ssl, fd, waits);
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, host_name.c_str());
  SSL_set1_host(ssl, host_name.c_str());
  if (!alpn.empty()) {
    SSL_set_alpn_protos(ssl, reinterpret_cast<const unsigned char*>(alpn.data()),
                        static_cast<unsigned int>(alpn.size()));
  }
  try {
    stream.handshake(false, waits.idle_timeout);
  } catch (const TlsStreamError& e) {
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
      throw TlsStreamError("the certificate of " + host_name + " failed verification (" +
                           X509_verify_cert_error_string(verify) + ")");
    }
    throw;
  }
  return stream;
}

TlsStream::TlsStream(TlsStream&& other) noexcept
    : ssl_(other.ssl_), fd_(other.fd_), waits_(other.waits_), prefix_(other.prefix_) {
  other.ssl_ = nullptr;
}

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

void TlsStream::handshake(bool server, std::chrono::milliseconds timeout) {
  for (;;) {
    ERR_clear_error();
    const int result = server ? SSL_accept(ssl_) : SSL_connect(ssl_);
    if (result == 1) return;
    const int error = SSL_get_error(ssl_, result);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      throw TlsStreamError(std::string("TLS handshake failed: ") + openssl_errors());
    }
    wait_for(error, timeout, "the TLS handshake");
  }
}

void TlsStream::wait_for(int ssl_error, std::chrono::milliseconds timeout, const char* doing) {
  if (prefix_ != nullptr && ssl_error == SSL_ERROR_WANT_READ && BIO_ctrl_pending(prefix_) == 0) {
    // What was read before is used up: read the socket from now on (SSL frees the old BIO).
    BIO* socket_bio = BIO_new_socket(fd_, BIO_NOCLOSE);
    prefix_ = nullptr;
    SSL_set0_rbio(ssl_, socket_bio);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd watched{fd_, static_cast<short>(ssl_error == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN), 0};
  for (;;) {
    if (waits_.stopping != nullptr && waits_.stopping->load()) {
      throw TlsStreamError(std::string("the proxy is stopping (during ") + doing + ")");
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw TlsStreamError(std::string("nothing moved for ") + std::to_string(timeout.count()) +
                           " ms (during " + doing + ")");
    }
    const int ready = ::poll(&watched, 1, static_cast<int>(std::min(left, kPollSlice).count()));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) throw TlsStreamError("poll failed");
  }
}

std::size_t TlsStream::read_some(char* buffer, std::size_t size) {
  for (;;) {
    ERR_clear_error();
    std::size_t got = 0;
    const int result = SSL_read_ex(ssl_, buffer, size, &got);
    if (result == 1) return got;
    const int error = SSL_get_error(ssl_, result);
    if (error == SSL_ERROR_ZERO_RETURN) return 0;
    if (error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return 0;  // closed without notify
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      throw TlsStreamError(std::string("TLS read failed: ") + openssl_errors());
    }
    wait_for(error, waits_.idle_timeout, "a read");
  }
}

long TlsStream::read_ready(char* buffer, std::size_t size) {
  for (;;) {
    ERR_clear_error();
    std::size_t got = 0;
    const int result = SSL_read_ex(ssl_, buffer, size, &got);
    if (result == 1) return static_cast<long>(got);
    const int error = SSL_get_error(ssl_, result);
    if (error == SSL_ERROR_ZERO_RETURN) return 0;
    if (error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return 0;
    if (error == SSL_ERROR_WANT_READ) {
      if (prefix_ != nullptr && BIO_ctrl_pending(prefix_) == 0) {
        wait_for(error, waits_.idle_timeout, "a read");  // switches to the socket, no wait
        continue;
      }
      return -1;
    }
    if (error == SSL_ERROR_WANT_WRITE) {
      wait_for(error, waits_.idle_timeout, "a read");
      continue;
    }
    throw TlsStreamError(std::string("TLS read failed: ") + openssl_errors());
  }
}

bool TlsStream::buffered() const { return SSL_pending(ssl_) > 0; }

void TlsStream::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    ERR_clear_error();
    std::size_t sent = 0;
    const int result = SSL_write_ex(ssl_, bytes.data(), bytes.size(), &sent);
    if (result == 1) {
      bytes.remove_prefix(sent);
      continue;
    }
    const int error = SSL_get_error(ssl_, result);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      throw TlsStreamError(std::string("TLS write failed: ") + openssl_errors());
    }
    wait_for(error, waits_.idle_timeout, "a write");
  }
}

void TlsStream::close() noexcept {
  if (ssl_ != nullptr) SSL_shutdown(ssl_);
  ERR_clear_error();
}

std::string TlsStream::alpn() const {
  const unsigned char* data = nullptr;
  unsigned int size = 0;
  SSL_get0_alpn_selected(ssl_, &data, &size);
  return data == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace kg::sandbox
