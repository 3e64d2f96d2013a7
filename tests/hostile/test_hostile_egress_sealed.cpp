// Sealed credentials at the egress proxy (docs/egress.md, "Sealed credentials"), on a real
// EgressProxy made here as LocalSandboxProvider makes it, with a real EgressTls (its CA in a
// scratch folder) and a TLS peer of this test standing in for storage.googleapis.com on the
// "internet" address (egress_world.hpp: the test /etc/hosts names it, the world's self-signed
// certificate names it). The test is the program: it asks the proxy to CONNECT, trusts only the
// daemon's CA, and sends `Authorization: Bearer <placeholder>`. Proven here: the peer sees the
// real token; a second request on the same connection is refused by `refuse` before it leaves,
// with a Google-style 403; the exchanges end_call() reports are exactly what happened; the
// placeholder sent to an allowed non-Google name goes through the blind tunnel unchanged; an
// upstream whose certificate the proxy cannot verify gives the program a 403 naming why. Over
// HTTP/2 (an nghttp2 client here, fake-gcs-server's HTTPS port as the upstream): REST and gRPC
// streams are relayed, a refused gRPC call gets grpc-status 7 with the rule as grpc-message, and
// each stream's exchange (grpc-status from the upstream's trailers) is recorded.
#include <doctest/doctest.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <Poco/Base64Encoder.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <sstream>
#include <cstring>
#include <map>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../support/test_loggers.hpp"
#include "egress_gateway.hpp"
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

// The stand-in for Google (on the world's "internet" listener, with its certificate): answers
// every request with the Authorization header it received as the body.
PeerAnswer echo_authorization(const PeerRequest& request) {
  return {200, "OK", "text/plain", request.authorization};
}

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

// The program's side: CONNECT through the proxy, then TLS trusting only `trusted_pem`, offering
// ALPN `alpn` (wire format).
class ProgramConnection {
 public:
  ProgramConnection(const std::string& socket_path, const std::string& host, int port,
                    const std::string& trusted_pem,
                    std::string_view alpn = std::string_view("\x08http/1.1", 9))
      : ProgramConnection(connect_to(socket_path), host, port, trusted_pem, alpn, "") {}
  // Over a connection already open to a proxy (a gateway's TCP port), sending
  // `proxy_headers` ("Proxy-Authorization: ...\r\n") with the CONNECT.
  ProgramConnection(Fd fd, const std::string& host, int port, const std::string& trusted_pem,
                    std::string_view alpn, const std::string& proxy_headers)
      : fd_(std::move(fd)) {
    const std::string connect = "CONNECT " + host + ":" + std::to_string(port) + " HTTP/1.1\r\nHost: " +
                                host + "\r\n" + proxy_headers + "\r\n";
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
    SSL_set_alpn_protos(ssl_, reinterpret_cast<const unsigned char*>(alpn.data()),
                        static_cast<unsigned int>(alpn.size()));
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
  SSL* ssl() { return ssl_; }
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

// A minimal HTTP/2 client over a ProgramConnection (nghttp2): sends requests, reads until every
// one of them has closed.
class Http2Program {
 public:
  struct Answer {
    std::vector<std::pair<std::string, std::string>> headers;  // the head and any trailers
    std::string body;
    std::uint32_t reset = 0;
    bool closed = false;
    std::string header(const std::string& name) const {
      for (const auto& [key, value] : headers) {
        if (key == name) return value;
      }
      return {};
    }
  };
  explicit Http2Program(ProgramConnection& connection) : connection_(connection) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(
        callbacks, [](nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                      std::size_t name_size, const std::uint8_t* value, std::size_t value_size,
                      std::uint8_t, void* self) {
          static_cast<Http2Program*>(self)->answers_[frame->hd.stream_id].headers.emplace_back(
              std::string(reinterpret_cast<const char*>(name), name_size),
              std::string(reinterpret_cast<const char*>(value), value_size));
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        callbacks, [](nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                      std::size_t size, void* self) {
          static_cast<Http2Program*>(self)->answers_[id].body.append(
              reinterpret_cast<const char*>(data), size);
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        callbacks, [](nghttp2_session*, std::int32_t id, std::uint32_t error, void* self) {
          auto& answer = static_cast<Http2Program*>(self)->answers_[id];
          answer.closed = true;
          answer.reset = error;
          return 0;
        });
    nghttp2_session_client_new(&session_, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
  ~Http2Program() { nghttp2_session_del(session_); }

  // A request with `body` (empty: none), its headers given in order.
  std::int32_t request(const std::vector<std::pair<std::string, std::string>>& headers,
                       std::string body) {
    std::vector<nghttp2_nv> nva;
    for (const auto& [name, value] : headers) {
      nva.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                     reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                     value.size(), NGHTTP2_NV_FLAG_NONE});
    }
    bodies_.push_back(std::make_unique<std::string>(std::move(body)));
    nghttp2_data_provider provider{};
    provider.source.ptr = bodies_.back().get();
    provider.read_callback = [](nghttp2_session*, std::int32_t, std::uint8_t* buffer,
                                std::size_t size, std::uint32_t* flags, nghttp2_data_source* source,
                                void*) -> ssize_t {
      auto& left = *static_cast<std::string*>(source->ptr);
      const std::size_t n = std::min(size, left.size());
      std::memcpy(buffer, left.data(), n);
      left.erase(0, n);
      if (left.empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
    const bool has_body = !bodies_.back()->empty();
    const auto id = nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(),
                                           has_body ? &provider : nullptr, nullptr);
    answers_[id];
    return id;
  }
  // Runs the connection until every request's stream has closed (or the connection ends).
  void run() {
    char buffer[16384];
    for (;;) {
      const std::uint8_t* data = nullptr;
      for (ssize_t n; (n = nghttp2_session_mem_send(session_, &data)) > 0;) {
        REQUIRE(SSL_write(connection_.ssl(), data, static_cast<int>(n)) == n);
      }
      bool open = false;
      for (const auto& [id, answer] : answers_) open = open || !answer.closed;
      if (!open) return;
      const int got = SSL_read(connection_.ssl(), buffer, sizeof buffer);
      if (got <= 0) return;
      REQUIRE(nghttp2_session_mem_recv(session_, reinterpret_cast<std::uint8_t*>(buffer),
                                       static_cast<std::size_t>(got)) == got);
    }
  }
  const Answer& answer(std::int32_t id) { return answers_[id]; }

 private:
  ProgramConnection& connection_;
  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, Answer> answers_;
  std::vector<std::unique_ptr<std::string>> bodies_;
};

std::string body_of(const std::string& answer) {
  const auto end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::optional<int> number_or_none(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return std::stoi(text);
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
  RecordingTlsPeer peer(internet_listener(), echo_authorization);
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
  const auto seen = peer.authorizations();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::string("Bearer ") + kRealToken);
  CHECK(seen[1] == std::string("Bearer ") + kPlaceholder);  // the non-Google name
}

TEST_CASE("hostile egress sealed: another Host inside, and an unverifiable upstream, are refused clearly") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  RecordingTlsPeer peer(internet_listener(), echo_authorization);
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
    CHECK(answer.starts_with("HTTP/1.1 403"));  // not 5xx: clients would retry it
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
  {
    // The right Host, but an absolute-form target naming another site.
    ProgramConnection program(socket, kGoogleName, world().internet_port, tls->ca_certificate_pem());
    const std::string answer = program.exchange(
        "GET https://attacker.appspot.com/x HTTP/1.1\r\nHost: " + std::string(kGoogleName) +
        "\r\nAuthorization: Bearer " + kPlaceholder + "\r\n\r\n");
    INFO(answer);
    CHECK(answer.starts_with("HTTP/1.1 403"));
    CHECK(contains(body_of(answer), "names another authority than storage.googleapis.com"));
  }
  const auto report = proxy.end_call();
  CHECK(peer.authorizations().empty());  // nothing reached the peer with the real token
  REQUIRE(report.exchanges.size() == 3);
  CHECK(report.exchanges[0].http_status == 403);
  CHECK(report.exchanges[1].http_status == 403);
  CHECK(report.exchanges[1].refusal.has_value());
  CHECK(report.exchanges[2].http_status == 403);
  CHECK(report.exchanges[2].refusal.has_value());
  bool warned = false;
  for (const auto& line : report.refusals) warned = warned || contains(line, "failed verification");
  CHECK(warned);
}

// A client offering only ALPN protocols the proxy does not relay ("foo"): in access-token mode
// (no sealed token) a blind tunnel would carry the program's own token past the API policy and
// the audit, so the tunnel is refused; the program's TLS library is told why.
TEST_CASE("hostile egress sealed: a tunnel to a Google API host offering ALPN foo is refused, not relayed") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  RecordingTlsPeer peer(internet_listener(), echo_authorization);
  const auto certificate = (TestNetwork::get().scratch() / "cert.pem").string();
  auto tls = std::make_shared<sandbox::EgressTls>((scratch.path / "ca").string(), certificate);
  const std::string socket = (scratch.path / "egress.sock").string();
  sandbox::EgressProxy proxy("sandbox-alpn", socket, std::nullopt, sealed_allowlist(), logger,
                             sandbox::EgressProxyLimits{}, tls);
  sandbox::EgressCallSetup setup;  // no sealed token: mode access-token
  int asked = 0;
  setup.refuse = [&](const sandbox::ApiRequestFacts&) -> std::optional<std::string> {
    ++asked;
    return std::string("read-only: everything refused");
  };
  proxy.begin_call(setup);
  {
    Fd fd = connect_to(socket);
    const std::string connect = std::string("CONNECT ") + kGoogleName + ":" +
                                std::to_string(world().internet_port) + " HTTP/1.1\r\nHost: " +
                                kGoogleName + "\r\n\r\n";
    REQUIRE(::send(fd.get(), connect.data(), connect.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(connect.size()));
    std::string answer;
    char c;
    while (answer.find("\r\n\r\n") == std::string::npos && ::read(fd.get(), &c, 1) == 1) answer += c;
    REQUIRE(answer.starts_with("HTTP/1.1 200"));
    // Trusting the peer's own certificate, as a client of a blind tunnel would.
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    BIO* bio = BIO_new_mem_buf(world().certificate_pem.data(), static_cast<int>(world().certificate_pem.size()));
    X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    REQUIRE(ca != nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(context), ca);
    X509_free(ca);
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd.get());
    SSL_set_tlsext_host_name(ssl, kGoogleName);
    static const unsigned char kFoo[] = {3, 'f', 'o', 'o'};
    SSL_set_alpn_protos(ssl, kFoo, sizeof kFoo);
    ERR_clear_error();
    const int handshake = SSL_connect(ssl);
    char error[256] = "";
    ERR_error_string_n(ERR_peek_error(), error, sizeof error);
    INFO("TLS: " << error);
    CHECK(handshake != 1);
    CHECK(contains(error, "no application protocol"));
    SSL_free(ssl);
    SSL_CTX_free(context);
  }
  const auto report = proxy.end_call();
  CHECK(report.exchanges.empty());
  CHECK(asked == 0);
  CHECK(peer.authorizations().empty());
  REQUIRE(report.refusals.size() == 1);
  CHECK(contains(report.refusals[0], R"(offers only the application protocols (ALPN) "foo")"));
  CHECK(report.refusal_counts.at("tls_hello") == 1);
}

TEST_CASE("hostile egress sealed: HTTP/2 streams to fake-gcs-server are relayed, refused and recorded") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  const auto certificate = (TestNetwork::get().scratch() / "cert.pem").string();
  auto tls = std::make_shared<sandbox::EgressTls>((scratch.path / "ca").string(), certificate);
  const std::string socket = (scratch.path / "egress.sock").string();
  // fake-gcs-server's HTTPS port (gRPC and the JSON API over HTTP/2), by its real API name.
  sandbox::EgressProxy proxy("sandbox-sealed", socket, std::nullopt,
                             sandbox::EgressAllowlist::parse({kGoogleName}, {kStorageTlsPort}),
                             logger, sandbox::EgressProxyLimits{}, tls);
  sandbox::EgressCallSetup setup;
  setup.sealed = sandbox::SealedToken{kPlaceholder, kRealToken, std::chrono::system_clock::now() + 1h};
  setup.refuse = [](const sandbox::ApiRequestFacts& facts) -> std::optional<std::string> {
    if (facts.path.ends_with("/DeleteBucket")) return std::string("read-only: DeleteBucket is a write");
    return std::nullopt;
  };
  proxy.begin_call(setup);
  ProgramConnection program(socket, kGoogleName, kStorageTlsPort, tls->ca_certificate_pem(),
                            std::string_view("\x02h2\x08http/1.1", 12));
  REQUIRE(program.alpn() == "h2");
  Http2Program h2(program);
  const std::string authority = kGoogleName;
  const std::string bearer = std::string("Bearer ") + kPlaceholder;
  const auto list = h2.request({{":method", "GET"}, {":scheme", "https"}, {":authority", authority},
                                {":path", "/storage/v1/b?project=p"}, {"authorization", bearer}}, "");
  // An empty ListBucketsRequest, as one gRPC message (no compression, length 0).
  const std::string empty_message("\0\0\0\0\0", 5);
  const auto grpc = h2.request({{":method", "POST"}, {":scheme", "https"}, {":authority", authority},
                                {":path", "/google.storage.v1.Storage/ListBuckets"},
                                {"content-type", "application/grpc"}, {"te", "trailers"},
                                {"x-goog-request-params", "project=p"}, {"authorization", bearer}},
                               empty_message);
  const auto refused = h2.request({{":method", "POST"}, {":scheme", "https"}, {":authority", authority},
                                   {":path", "/google.storage.v1.Storage/DeleteBucket"},
                                   {"content-type", "application/grpc"}, {"te", "trailers"},
                                   {"authorization", bearer}},
                                  empty_message);
  const auto fronted = h2.request({{":method", "GET"}, {":scheme", "https"},
                                   {":authority", "attacker.appspot.com"}, {":path", "/"},
                                   {"authorization", bearer}}, "");
  h2.run();
  const auto& listed = h2.answer(list);
  INFO(listed.body);
  CHECK(listed.header(":status") == "200");
  CHECK(contains(listed.body, kBucket));
  const auto& called = h2.answer(grpc);
  CHECK(called.header(":status") == "200");
  CHECK_FALSE(called.header("grpc-status").empty());  // from fake-gcs-server's trailers
  const auto& denied = h2.answer(refused);
  CHECK(denied.header(":status") == "200");
  CHECK(denied.header("grpc-status") == "7");
  CHECK(denied.header("grpc-message") == "read-only: DeleteBucket is a write");
  const auto& other = h2.answer(fronted);
  CHECK(other.header(":status") == "403");
  CHECK(contains(other.body, "is not storage.googleapis.com"));

  const auto report = proxy.end_call();
  REQUIRE(report.exchanges.size() == 4);
  std::map<std::string, sandbox::ApiExchange> by_path;
  for (const auto& exchange : report.exchanges) by_path[exchange.request.path] = exchange;
  const auto& rest = by_path.at("/storage/v1/b?project=p");
  CHECK(rest.request.http_method == "GET");
  CHECK_FALSE(rest.request.grpc);
  CHECK(rest.http_status == 200);
  CHECK(rest.response_bytes == listed.body.size());
  const auto& rpc = by_path.at("/google.storage.v1.Storage/ListBuckets");
  CHECK(rpc.request.grpc);
  CHECK(rpc.request.request_params == "project=p");
  CHECK(rpc.request_bytes == 5);
  CHECK(rpc.grpc_status == number_or_none(called.header("grpc-status")));
  CHECK_FALSE(rpc.refusal.has_value());
  const auto& no = by_path.at("/google.storage.v1.Storage/DeleteBucket");
  CHECK(no.refusal == std::optional<std::string>("read-only: DeleteBucket is a write"));
  CHECK(no.grpc_status == std::optional<int>(7));
  CHECK(by_path.at("/").http_status == 403);
  CHECK(by_path.at("/").refusal.has_value());
}

namespace {

Fd connect_tcp(int port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = htons(static_cast<std::uint16_t>(port));
  where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0);
  timeval timeout{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return fd;
}

std::string basic(const std::string& user, const std::string& secret) {
  std::ostringstream encoded;
  Poco::Base64Encoder encoder(encoded);
  encoder.rdbuf()->setLineLength(0);
  encoder << user << ':' << secret;
  encoder.close();
  return "Proxy-Authorization: Basic " + encoded.str() + "\r\n";
}

// What the gateway answers a CONNECT carrying `proxy_headers` (its whole first answer).
std::string gateway_answer(int port, const std::string& proxy_headers) {
  const Fd fd = connect_tcp(port);
  const std::string connect = std::string("CONNECT ") + kGoogleName + ":443 HTTP/1.1\r\nHost: " +
                              kGoogleName + "\r\n" + proxy_headers + "\r\n";
  ::send(fd.get(), connect.data(), connect.size(), MSG_NOSIGNAL);
  std::string answer;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(fd.get(), chunk, sizeof chunk);
    if (got <= 0) break;
    answer.append(chunk, static_cast<std::size_t>(got));
  }
  return answer;
}

}  // namespace

// The Kubernetes sandboxes' egress (egress_gateway.hpp): one TCP listener, two sandboxes' proxies
// behind it, each call known by its credential alone.
TEST_CASE("hostile egress sealed: the gateway serves each connection with the proxy of the call its credential names") {
  REQUIRE(world().skip_reason.empty());
  ScratchFolder scratch;
  RecordingLogger logger;
  RecordingTlsPeer peer(internet_listener(), echo_authorization);
  const auto certificate = (TestNetwork::get().scratch() / "cert.pem").string();
  auto tls = std::make_shared<sandbox::EgressTls>((scratch.path / "ca").string(), certificate);
  sandbox::EgressGatewayOptions listen;
  listen.host = "127.0.0.1";
  listen.port = 0;  // a free one
  sandbox::EgressGateway gateway(listen, logger);
  REQUIRE(gateway.port() != 0);
  auto first = std::make_shared<sandbox::EgressProxy>("pod-a", sealed_allowlist(), logger,
                                                      sandbox::EgressProxyLimits{}, tls);
  auto second = std::make_shared<sandbox::EgressProxy>("pod-b", sealed_allowlist(), logger,
                                                       sandbox::EgressProxyLimits{}, tls);
  const auto now = std::chrono::system_clock::now();
  first->begin_call({.sealed = sandbox::SealedToken{kPlaceholder, "ya29.token-of-call-a", now + 1h},
                     .refuse = {}});
  second->begin_call({.sealed = sandbox::SealedToken{kPlaceholder, "ya29.token-of-call-b", now + 1h},
                      .refuse = [](const sandbox::ApiRequestFacts&) -> std::optional<std::string> {
                        return std::string("read-only: the call's policy");
                      }});
  const auto a = gateway.admit(first);
  const auto b = gateway.admit(second);
  CHECK(a.user != b.user);
  CHECK(a.secret != b.secret);
  CHECK(a.secret.size() == 43);  // 32 random bytes
  const std::string host_header = std::string(kGoogleName) + ":" + std::to_string(world().internet_port);
  {
    ProgramConnection program(connect_tcp(gateway.port()), kGoogleName, world().internet_port,
                              tls->ca_certificate_pem(), std::string_view("\x08http/1.1", 9),
                              basic(a.user, a.secret));
    const std::string answer = program.exchange(get_with_placeholder(host_header, "/storage/v1/b?project=p"));
    INFO(answer);
    CHECK(body_of(answer) == "Bearer ya29.token-of-call-a");
  }
  {
    ProgramConnection program(connect_tcp(gateway.port()), kGoogleName, world().internet_port,
                              tls->ca_certificate_pem(), std::string_view("\x08http/1.1", 9),
                              basic(b.user, b.secret));
    const std::string answer = program.exchange(get_with_placeholder(host_header, "/storage/v1/b?project=p"));
    INFO(answer);
    CHECK(answer.starts_with("HTTP/1.1 403"));  // call b's policy, not call a's
    CHECK(answer.find("read-only: the call's policy") != std::string::npos);
  }
  // No credential, another call's secret, a secret cut short, garbage: 407, served by no call.
  for (const std::string& headers :
       {std::string(), basic(a.user, b.secret), basic(a.user, a.secret.substr(0, 42)),
        basic("kg-0000000000000000", a.secret), std::string("Proxy-Authorization: Bearer ") + a.secret + "\r\n",
        std::string("Proxy-Authorization: Basic !!!\r\n")}) {
    CAPTURE(headers);
    const std::string answer = gateway_answer(gateway.port(), headers);
    CHECK(answer.starts_with("HTTP/1.1 407"));
    CHECK(answer.find("Proxy-Authenticate: Basic") != std::string::npos);
  }
  // A call's credential ends with it.
  gateway.revoke(a.user);
  CHECK(gateway_answer(gateway.port(), basic(a.user, a.secret)).starts_with("HTTP/1.1 407"));
  const auto report_a = first->end_call();
  const auto report_b = second->end_call();
  REQUIRE(report_a.exchanges.size() == 1);
  CHECK(report_a.exchanges[0].http_status == 200);
  CHECK_FALSE(report_a.exchanges[0].refusal.has_value());
  REQUIRE(report_b.exchanges.size() == 1);
  CHECK(report_b.exchanges[0].refusal == std::optional<std::string>("read-only: the call's policy"));
  const auto seen = peer.authorizations();
  REQUIRE(seen.size() == 1);  // b's request was refused before it left; nothing else got through
  CHECK(seen[0] == "Bearer ya29.token-of-call-a");
  gateway.revoke(b.user);
}

}  // namespace kg::test::egress
