// A stand-in HTTPS server for the tests that check what reaches "Google" through the daemon's
// egress proxy (hostile-egress's sealed tests, team-sealed, k8s-sealed): TLS with a certificate
// the test made, on a listening socket the test made (the egress world's "internet" listener,
// tests/hostile/egress_world.hpp), HTTP/1.1 with keep-alive. It keeps the Authorization header
// of every request it reads (what the proxy put there: the real token, never the placeholder, is
// what those tests prove) and answers each request with what the test's `answer` says.
//
// A thread accepts; each connection has its own thread. All are joined by the destructor, which
// waits up to about two seconds for idle kept-alive connections to notice. Tests only.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kg::test {

// Where the peer listens and who it says it is.
struct TlsListener {
  int fd = -1;  // listening; owned by the caller, outlives the peer
  std::filesystem::path certificate;  // PEM
  std::filesystem::path key;          // PEM
};

struct PeerRequest {
  std::string head;           // request line and headers, up to and with the blank line
  std::string authorization;  // its Authorization header's value ("" when none)
};

struct PeerAnswer {
  int status = 200;
  std::string reason = "OK";
  std::string content_type = "application/json";
  std::string body;
};

class RecordingTlsPeer {
 public:
  using Answer = std::function<PeerAnswer(const PeerRequest&)>;

  // Throws std::runtime_error when the certificate or key cannot be loaded.
  RecordingTlsPeer(TlsListener listener, Answer answer);
  ~RecordingTlsPeer();
  RecordingTlsPeer(const RecordingTlsPeer&) = delete;
  RecordingTlsPeer& operator=(const RecordingTlsPeer&) = delete;

  // Each request's Authorization value, in the order they were read.
  std::vector<std::string> authorizations() const;

 private:
  void accept_loop();
  void serve(int fd);
  void record(const PeerRequest& request);

  TlsListener listener_;
  Answer answer_;
  SSL_CTX* context_ = nullptr;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> authorizations_;  // guarded by mutex_
  std::thread acceptor_;
  std::vector<std::thread> connections_;  // only the acceptor adds, before it is joined
};

}  // namespace kg::test
