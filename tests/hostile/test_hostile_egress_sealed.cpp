// Sealed credentials at the egress proxy (docs/egress.md, "Sealed credentials"), on a real
// EgressProxy made here as LocalSandboxProvider makes it, with a real EgressTls (its CA in a
// scratch folder) and a TLS peer of this test standing in for storage.googleapis.com on the
// "internet" address (egress_world.hpp: the test /etc/hosts names it, the world's self-signed
// certificate names it). The test is the program: it asks the proxy to CONNECT, trusts only the
// daemon's CA, and sends `Authorization: Bearer <placeholder>`. Proven here: the peer sees the
// real token; a second request on the same connection is refused by `refuse` before it leaves,
// with a Google-style 403; the exchanges end_call() reports are exactly what happened; the
// placeholder sent to an allowed non-Google name goes through the blind tunnel unchanged; an
// upstream whose certificate the proxy cannot verify gives the program a 502 naming why.
#include <doctest/doctest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_loggers.hpp"
#include "egress_proxy.hpp"
#include "egress_tls.hpp"
#include "egress_world.hpp"
#include "test_network.hpp"

namespace kg::test::egress {
namespace {

using namespace std::chrono_literals;
using sandbox::testing::Fd;
using sandbox::testing::TestNetwork;

constexpr const char* kGoogleName = "storage.googleapis.com";
constexpr const char* kPlaceholder = "kg-sealed.test-placeholder";
constexpr const char* kRealToken = "ya29.the-real-token-only-the-daemon-holds";

struct ScratchFolder {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("kg-egress-sealed-" + std::to_string(::getpid()));
  ScratchFolder() { std::filesystem::create_directories(path); }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// The stand-in for Google: TLS with the world's certificate on the "internet" listener; answers
// every request with the Authorization header it received as the body, keep-alive.
class HeaderEchoPeer {
 public:
  HeaderEchoPeer() {
    context_ = SSL_CTX_new(TLS_server_method());
    const auto scratch = TestNetwork::get().scratch();
    REQUIRE(SSL_CTX_use_certificate_file(context_, (scratch / "cert.pem").c_str(), SSL_FILETYPE_PEM) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey_file(context_, (scratch / "key.pem").c_str(), SSL_FILETYPE_PEM) == 1);
    thread_ = std::thread([this] { serve(); });
  }
  ~HeaderEchoPeer() {
    stopping_ = true;
    thread_.join();
    SSL_CTX_free(context_);
  }
  std::vector<std::string> seen() {
    const std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  void serve() {
    while (!stopping_) {
      pollfd entry{world().internet_fd, POLLIN, 0};
      if (::poll(&entry, 1, 100) != 1) continue;
      const int fd = ::accept(world().internet_fd, nullptr, nullptr);
      if (fd < 0) continue;
      std::thread([this, fd] { serve_one(fd); }).detach();
    }
    std::this_thread::sleep_for(200ms);  // connections end with their clients
  }
  void serve_one(int fd) {
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    SSL* ssl = SSL_new(context_);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
      std::string buffer;
      char chunk[4096];
      for (;;) {
        const auto end = buffer.find("\r\n\r\n");
        if (end == std::string::npos) {
          const int got = SSL_read(ssl, chunk, sizeof chunk);
          if (got <= 0) break;
          buffer.append(chunk, static_cast<std::size_t>(got));
          continue;
        }
        const std::string head = buffer.substr(0, end + 4);
        buffer.erase(0, end + 4);
        std::string authorization;
        const auto at = head.find("\r\nAuthorization: ");
        if (at != std::string::npos) {
          authorization = head.substr(at + 17, head.find("\r\n", at + 2) - at - 17);
        }
        {
          const std::lock_guard lock(mutex_);
          seen_.push_back(authorization);
        }
        const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                                   std::to_string(authorization.size()) + "\r\n\r\n" + authorization;
        SSL_write(ssl, answer.data(), static_cast<int>(answer.size()));
      }
    }
    SSL_free(ssl);
    ::close(fd);
  }

  SSL_CTX* context_ = nullptr;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<std::string> seen_;
  std::thread thread_;
};

Fd connect_to(const std::string& socket_path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un where{};
  where.sun_family = AF_UNIX;
  socket_path.copy(where.sun_path, sizeof where.sun_path - 1);
  REQUIRE(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0);
  timeval timeout{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return fd;
}

// The program's side: CONNECT through the proxy, then TLS trusting only `trusted_pem`.
class ProgramConnection {
 public:
  ProgramConnection(const std::string& socket_path, const std::string& host, int port,
                    const std::string& trusted_pem)
      : fd_(connect_to(socket_path)) {
    const std::string connect = "CONNECT " + host + ":" + std::to_string(port) + " HTTP/1.1\r\nHost: " +
                                host + "\r\n\r\n";
    REQUIRE(::send(fd_.get(), connect.data(), connect.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(connect.size()));
    std::string answer;
    char c;
    while (answer.find("\r\n\r\n") == std::string::npos && ::read(fd_.get(), &c, 1) == 1) answer += c;
    INFO(answer);
    REQUIRE(answer.starts_with("HTTP/1.1 200"));
    context_ = SSL_CTX_new(TLS_client_method());
    BIO* bio = BIO_new_mem_buf(trusted_pem.data(), static_cast<int>(trusted_pem.size()));
    X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    REQUIRE(ca != nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(context_), ca);
    X509_free(ca);
    SSL_CTX_set_verify(context_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(context_);
    SSL_set_fd(ssl_, fd_.get());
    SSL_set_tlsext_host_name(ssl_, host.c_str());
    SSL_set1_host(ssl_, host.c_str());
    // HTTP/1.1 only (the HTTP/2 path is proven with real Go clients through the daemon).
    static const unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_set_alpn_protos(ssl_, kAlpn, sizeof kAlpn);
    const int handshake = SSL_connect(ssl_);
    char error[256] = "";
    ERR_error_string_n(ERR_peek_error(), error, sizeof error);
    INFO("TLS with the proxy: " << error);
    REQUIRE(handshake == 1);
  }
  ~ProgramConnection() {
    SSL_free(ssl_);
    SSL_CTX_free(context_);
  }
  // Sends `request` and reads one answer (head and Content-Length body).
  std::string exchange(const std::string& request) {
    REQUIRE(SSL_write(ssl_, request.data(), static_cast<int>(request.size())) ==
            static_cast<int>(request.size()));
    std::string answer;
    char chunk[4096];
    for (;;) {
      const auto end = answer.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto at = answer.find("Content-Length: ");
        const std::size_t length = at == std::string::npos ? 0 : std::stoul(answer.substr(at + 16));
        if (answer.size() >= end + 4 + length) return answer;
      }
      const int got = SSL_read(ssl_, chunk, sizeof chunk);
      if (got <= 0) return answer;
      answer.append(chunk, static_cast<std::size_t>(got));
    }
  }
  std::string alpn() const {
    const unsigned char* data = nullptr;
    unsigned int size = 0;
    SSL_get0_alpn_selected(ssl_, &data, &size);
    return data == nullptr ? "" : std::string(reinterpret_cast<const char*>(data), size);
  }

 private:
  Fd fd_;
  SSL_CTX* context_ = nullptr;
  SSL* ssl_ = nullptr;
};

std::string body_of(const std::string& answer) {
  const auto end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

sandbox::EgressAllowlist sealed_allowlist() {
  return sandbox::EgressAllowlist::parse({kGoogleName, kStorageHost}, {world().internet_port});
}

std::string get_with_placeholder(const std::string& host, const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " +
         kPlaceholder + "\r\n\r\n";
}

}  // namespace

TEST_CASE("hostile egress sealed: the peer sees the real token, refusals and exchanges are exact") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  HeaderEchoPeer peer;
  const auto certificate = (TestNetwork::get().scratch() / "cert.pem").string();
  auto tls = std::make_shared<sandbox::EgressTls>((scratch.path / "ca").string(), certificate);
  // The CA's key is the daemon's alone.
  const auto key_mode = std::filesystem::status(scratch.path / "ca" / "ca-key.pem").permissions() &
                        std::filesystem::perms::all;
  CHECK((key_mode == (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)));
  const std::string socket = (scratch.path / "egress.sock").string();
  sandbox::EgressProxy proxy("sandbox-sealed", socket, std::nullopt, sealed_allowlist(), logger,
                             sandbox::EgressProxyLimits{}, tls);
  sandbox::EgressCallSetup setup;
  setup.sealed = sandbox::SealedToken{kPlaceholder, kRealToken, std::chrono::system_clock::now() + 1h};
  std::vector<sandbox::ApiRequestFacts> asked;
  std::mutex asked_mutex;
  setup.refuse = [&](const sandbox::ApiRequestFacts& facts) -> std::optional<std::string> {
    const std::lock_guard lock(asked_mutex);
    asked.push_back(facts);
    if (facts.path.starts_with("/refuse")) return std::string("read-only: POST is a write");
    return std::nullopt;
  };
  proxy.begin_call(setup);
  const std::string host_header = std::string(kGoogleName) + ":" + std::to_string(world().internet_port);
  {
    ProgramConnection program(socket, kGoogleName, world().internet_port, tls->ca_certificate_pem());
    CHECK(program.alpn() == "http/1.1");
    const std::string first = program.exchange(get_with_placeholder(host_header, "/storage/v1/b?project=p"));
    INFO(first);
    CHECK(first.starts_with("HTTP/1.1 200"));
    CHECK(body_of(first) == std::string("Bearer ") + kRealToken);
    // The same connection (keep-alive): a JSON POST the call's policy refuses.
    const std::string json = R"({"name":"new-bucket"})";
    const std::string refused = program.exchange(
        "POST /refuse/b?project=p HTTP/1.1\r\nHost: " + host_header +
        "\r\nAuthorization: Bearer " + kPlaceholder +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(json.size()) +
        "\r\nx-goog-request-params: project=p\r\n\r\n" + json);
    INFO(refused);
    CHECK(refused.starts_with("HTTP/1.1 403"));
    CHECK(body_of(refused) == R"({"error":{"code":403,"message":"read-only: POST is a write","status":"PERMISSION_DENIED"}})");
  }
  // A name the allowlist admits that is not a Google API host: a blind tunnel, the placeholder
  // arrives as it was sent (worthless), and the program talks TLS with the peer itself.
  {
    ProgramConnection program(socket, kStorageHost, world().internet_port, world().certificate_pem);
    const std::string answer = program.exchange(get_with_placeholder(kStorageHost, "/"));
    CHECK(body_of(answer) == std::string("Bearer ") + kPlaceholder);
  }
  const auto report = proxy.end_call();
  REQUIRE(report.exchanges.size() == 2);
  const auto& got = report.exchanges[0];
  CHECK(got.request.host == kGoogleName);
  CHECK(got.request.http_method == "GET");
  CHECK(got.request.path == "/storage/v1/b?project=p");
  CHECK_FALSE(got.refusal.has_value());
  CHECK(got.http_status == 200);
  CHECK(got.response_bytes == std::string("Bearer ").size() + std::string(kRealToken).size());
  CHECK(got.request_bytes == 0);
  const auto& no = report.exchanges[1];
  CHECK(no.request.http_method == "POST");
  CHECK(no.request.json_body == R"({"name":"new-bucket"})");
  CHECK(no.request.request_params == "project=p");
  CHECK(no.refusal == std::optional<std::string>("read-only: POST is a write"));
  CHECK(no.http_status == 403);
  CHECK(report.exchanges_dropped == 0);
  {
    const std::lock_guard lock(asked_mutex);
    CHECK(asked.size() == 2);  // the tunnelled request was never readable
  }
  const auto seen = peer.seen();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::string("Bearer ") + kRealToken);
  CHECK(seen[1] == std::string("Bearer ") + kPlaceholder);  // the non-Google name
}

TEST_CASE("hostile egress sealed: another Host inside, and an unverifiable upstream, are refused clearly") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  HeaderEchoPeer peer;
  // No extra CA: the peer's self-signed certificate cannot be verified.
  auto tls = std::make_shared<sandbox::EgressTls>((scratch.path / "ca").string(), "");
  const std::string socket = (scratch.path / "egress.sock").string();
  sandbox::EgressProxy proxy("sandbox-sealed", socket, std::nullopt, sealed_allowlist(), logger,
                             sandbox::EgressProxyLimits{}, tls);
  sandbox::EgressCallSetup setup;
  setup.sealed = sandbox::SealedToken{kPlaceholder, kRealToken, std::chrono::system_clock::now() + 1h};
  proxy.begin_call(setup);
  {
    ProgramConnection program(socket, kGoogleName, world().internet_port, tls->ca_certificate_pem());
    const std::string answer = program.exchange(get_with_placeholder(kGoogleName, "/storage/v1/b"));
    INFO(answer);
    CHECK(answer.starts_with("HTTP/1.1 502"));
    CHECK(contains(body_of(answer), "cannot reach storage.googleapis.com securely"));
    CHECK(contains(body_of(answer), "failed verification"));
  }
  {
    ProgramConnection program(socket, kGoogleName, world().internet_port, tls->ca_certificate_pem());
    const std::string answer = program.exchange(get_with_placeholder("attacker.appspot.com", "/"));
    INFO(answer);
    CHECK(answer.starts_with("HTTP/1.1 403"));
    CHECK(contains(body_of(answer), "is not storage.googleapis.com"));
  }
  const auto report = proxy.end_call();
  CHECK(peer.seen().empty());  // nothing reached the peer with the real token
  REQUIRE(report.exchanges.size() == 2);
  CHECK(report.exchanges[0].http_status == 502);
  CHECK(report.exchanges[1].http_status == 403);
  CHECK(report.exchanges[1].refusal.has_value());
  bool warned = false;
  for (const auto& line : report.refusals) warned = warned || contains(line, "failed verification");
  CHECK(warned);
}

}  // namespace kg::test::egress
