#include "egress_proxy.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerParams.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "address_policy.hpp"
#include "egress_http1_relay.hpp"
#include "egress_http2_relay.hpp"
#include "egress_proxy_request.hpp"
#include "egress_tls_stream.hpp"
#include "egress_tunnel_check.hpp"
#include "host_addresses.hpp"
#include "socket_relay.hpp"
#include "unix_socket_listener.hpp"

namespace kg::sandbox {
namespace {

constexpr std::size_t kMaxHeadBytes = 16 * 1024;
const Poco::Timespan kConnectTimeout(10, 0);

}  // namespace

std::string read_proxy_head(Poco::Net::StreamSocket& socket, std::string& rest,
                            const ReceiveDeadline& deadline) {
  std::string data;
  char buffer[4096];
  for (;;) {
    const auto end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      rest = data.substr(end + 4);
      data.resize(end + 4);
      return data;
    }
    if (data.size() > kMaxHeadBytes) {
      throw ProxyRequestError(431, "The request head is larger than " +
                                       std::to_string(kMaxHeadBytes) + " bytes");
    }
    int got = 0;
    try {
      got = deadline.receive(socket, buffer, sizeof buffer);
    } catch (const Poco::TimeoutException&) {
      throw ProxyRequestError(408, "No complete request head " + deadline.within_text());
    }
    if (got <= 0) return {};
    data.append(buffer, static_cast<std::size_t>(got));
  }
}

namespace {

void send_all(Poco::Net::StreamSocket& socket, std::string_view bytes) {
  if (!bytes.empty()) socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
}

// The status line's reason phrase: the standard one, then what happened. Go's HTTP client shows
// a program only the reason phrase of a refused CONNECT ("proxyconnect ...: Bad Gateway"), never
// the body, so the reason must say what the proxy tried. Control bytes become spaces (a reason
// phrase is one line) and it is kept short.
std::string reason_phrase(int status, const std::string& message) {
  constexpr std::size_t kMaxDetail = 600;  // an unreachable host's advice must fit (below)
  std::string detail = "kode-gopher egress proxy: " + message;
  if (detail.size() > kMaxDetail) detail = detail.substr(0, kMaxDetail) + "...";
  for (char& c : detail) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return Poco::Net::HTTPResponse::getReasonForStatus(
             static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status)) +
         " (" + detail + ")";
}

}  // namespace

void answer_proxy_client(Poco::Net::StreamSocket& socket, int status, const std::string& message) {
  // HTTP/1.1 like the proxy's 200 and 429 lines (Poco's default would be HTTP/1.0).
  Poco::Net::HTTPResponse response(Poco::Net::HTTPMessage::HTTP_1_1,
                                   static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status),
                                   reason_phrase(status, message));
  const std::string body = "kode-gopher egress proxy: " + message + "\n";
  response.setContentType("text/plain; charset=utf-8");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.set("Connection", "close");
  // RFC 9110 §11.7.1: a 407 names the scheme the proxy takes (egress_gateway.hpp).
  if (status == 407) response.set("Proxy-Authenticate", "Basic realm=\"kode-gopher egress\"");
  std::ostringstream head;
  response.write(head);
  send_all(socket, head.str() + body);
}

namespace {

// An allowed host the proxy could not reach from the daemon's machine: its name did not resolve
// there, or no address answered. The program gets a 502 whose reason phrase says so and what to
// check, and the call a warning with the same text (EgressProxy::unreachable), so neither reads
// like an outage or an answer of the cloud API (docs/egress.md, "`network = allowlist`: the
// egress proxy").
class UpstreamUnreachable : public ProxyRequestError {
 public:
  explicit UpstreamUnreachable(const std::string& what_failed)
      : ProxyRequestError(502, what_failed + kAdvice) {}

 private:
  static constexpr const char* kAdvice =
      ": the host is allowed, but the machine running the kode-gopher daemon could not reach "
      "it; check that machine's DNS and network connection (this is kode-gopher's answer, not "
      "the cloud API's)";
};

// Every address `host` resolves to (an IP literal is its own), each checked; throws
// EgressRefusal when any one is refused, so a name with one private answer among public ones is
// refused too. The name resolved is the validated one the allowlist admitted, byte for byte.
std::vector<Poco::Net::SocketAddress> checked_addresses(const net::Host& host, int port) {
  std::vector<Poco::Net::IPAddress> addresses;
  if (host.ip() != nullptr) {
    addresses.push_back(Poco::Net::IPAddress(host.ip()->text()));
  } else {
    try {
      addresses = Poco::Net::DNS::hostByName(host.name()->text()).addresses();
    } catch (const Poco::Exception& e) {
      throw UpstreamUnreachable("Cannot resolve " + host.text() + " (" + e.displayText() + ")");
    }
  }
  const auto host_addresses = host_interface_addresses();
  std::vector<Poco::Net::SocketAddress> checked;
  for (const auto& address : addresses) {
    const Poco::Net::SocketAddress target(address, static_cast<Poco::UInt16>(port));
    if (const auto reason = net::why_not_public(target.addr(), host_addresses)) {
      throw EgressRefusal{host.text() + " resolves to " + address.toString() + ": " + *reason,
                          EgressRefusalKind::address_not_public};
    }
    checked.push_back(target);
  }
  if (checked.empty()) throw UpstreamUnreachable("Cannot resolve " + host.text() + " (no address)");
  return checked;
}

Poco::Net::StreamSocket connect_to_first(const std::vector<Poco::Net::SocketAddress>& addresses,
                                         const std::string& host) {
  std::string failures;
  for (const auto& address : addresses) {
    try {
      Poco::Net::StreamSocket upstream;
      upstream.connect(address, kConnectTimeout);
      // A terminated tunnel writes each HTTP/2 frame or HTTP/1.1 part as its own TLS record; with
      // Nagle's algorithm a small record waits for the ACK of the one before (measured: ~5 ms
      // per request to fake-gcs-server, bench/README.md). Blind tunnels relay what arrives.
      upstream.setNoDelay(true);
      return upstream;
    } catch (const Poco::Exception& e) {
      failures += (failures.empty() ? "" : "; ") + address.toString() + ": " + e.displayText();
    }
  }
  throw UpstreamUnreachable("Cannot connect to " + host + " (" + failures + ")");
}

// One program connection to one sandbox's proxy, from its request head on: what a local
// sandbox's Unix socket and the Kubernetes sandboxes' gateway (egress_gateway.hpp) both serve.
class ConnectionServer {
 public:
  ConnectionServer(Poco::Net::StreamSocket& socket, EgressProxy& proxy)
      : socket_(socket), proxy_(proxy) {}

  // `head` was read by read_proxy_head, `rest` is what followed it.
  void run(const std::string& head, std::string rest) {
    auto& client = socket_;
    std::string what = "request";
    const auto& limits = proxy_.limits();
    try {
      const ProxyRequest request = parse_proxy_request(head);
      what = (request.tunnel ? "CONNECT " : "http://") + request.host.authority_text() + ":" +
             std::to_string(request.port);
      if (auto refusal = proxy_.allowlist().refusal(request.host, request.port)) {
        throw std::move(*refusal);
      }
      auto upstream =
          connect_to_first(checked_addresses(request.host, request.port), request.host.text());
      if (request.tunnel) {
        answered_ = true;
        send_all(client, "HTTP/1.1 200 Connection established\r\n\r\n");
        std::string hello = check_tunnel_hello(client, rest, request.host, request.port,
                                               proxy_.allowlist(),
                                               ReceiveDeadline(limits.head_timeout));
        const TunnelPlan plan = plan_tunnel(hello, request.host, proxy_.tls() != nullptr);
        if (plan.refusal) {
          try {
            send_all(client, tls_fatal_alert(plan.alert));
          } catch (const Poco::Exception&) {
            // The client is gone; the refusal is still recorded.
          }
          throw *plan.refusal;
        }
        if (plan.terminate) {
          terminate(std::move(hello), upstream, request, what);
          return;
        }
        send_all(upstream, hello);
      } else {
        answered_ = true;
        // Upstream was told "Connection: close", so it closes after its answer (RFC 9112 §9.6)
        // and the relay ends there: a next request, perhaps for another host, never goes
        // down this connection.
        send_all(upstream, request.upstream_head + rest);
      }
      net::relay_both_ways(client.impl()->sockfd(), upstream.impl()->sockfd(), proxy_.stopping(),
                           limits.idle_timeout);
    } catch (const EgressRefusal& refusal) {
      proxy_.refused(what, refusal.reason, refusal.kind);
      try_answer(403, "refused " + what + ": " + refusal.reason);
    } catch (const ProxyTargetRefused& e) {
      proxy_.refused(e.target(), e.what(), EgressRefusalKind::bad_target);
      try_answer(403, "refused " + e.target() + ": " + e.what());
    } catch (const UpstreamUnreachable& e) {
      proxy_.unreachable(what, e.what());
      try_answer(e.status(), e.what());
    } catch (const ProxyRequestError& e) {
      if (e.status() == 408) proxy_.refused(what, e.what(), EgressRefusalKind::head_timeout);
      try_answer(e.status(), e.what());
    } catch (const Poco::Exception& e) {
      try_answer(502, what + ": " + e.displayText());
    } catch (const std::exception& e) {
      try_answer(502, what + ": " + e.what());
    }
  }

 private:
  // Serves a tunnel to a Google API host with TLS terminated here (egress_http1_relay.hpp).
  void terminate(std::string hello, Poco::Net::StreamSocket& upstream, const ProxyRequest& request,
                 const std::string& what) {
    const std::string host = request.host.text();
    const TlsWaits waits{&proxy_.stopping(), proxy_.limits().idle_timeout};
    const SslContextPtr certificate = proxy_.tls()->server_context(host);
    std::optional<TlsStream> client;
    try {
      client.emplace(TlsStream::accept(socket_.impl()->sockfd(), certificate.get(),
                                       std::move(hello), waits, proxy_.limits().head_timeout));
    } catch (const TlsStreamError& e) {
      throw EgressRefusal{"the program did not complete TLS with the proxy (" +
                          std::string(e.what()) + "); a program must trust the sandbox's CA "
                          "bundle (SSL_CERT_FILE), and a client that pins Google's own "
                          "certificates cannot reach " + host + " with sealed credentials",
                          EgressRefusalKind::tls_to_proxy};
    }
    Http1RelayContext context;
    context.host = host;
    context.port = request.port;
    context.setup = [this] { return proxy_.call_setup(); };
    context.started = [this] { proxy_.exchange_started(); };
    context.record = [this](ApiExchange exchange) { proxy_.record_exchange(std::move(exchange)); };
    // The upstream speaks what the program chose: h2, else HTTP/1.1.
    const bool h2 = client->alpn() == "h2";
    std::optional<TlsStream> verified;
    try {
      verified.emplace(TlsStream::connect(
          upstream.impl()->sockfd(), proxy_.tls()->upstream_context(), host,
          h2 ? std::string_view("\x02h2", 3) : std::string_view("\x08http/1.1", 9), waits));
      if (h2 && verified->alpn() != "h2") {
        verified.reset();
        throw TlsStreamError(host + " did not agree to HTTP/2 (ALPN h2), which the program chose");
      }
    } catch (const std::exception& e) {
      context.upstream_failure = "cannot reach " + host + " securely: " + e.what();
      proxy_.refused(what, context.upstream_failure, EgressRefusalKind::upstream_tls);
    }
    try {
      if (h2) {
        relay_http2(*client, verified ? &*verified : nullptr, context, waits);
      } else {
        relay_http1(*client, verified ? &*verified : nullptr, context);
      }
    } catch (const std::exception& e) {
      proxy_.logger().log(plugin::LogLevel::debug, "Sandbox " + proxy_.sandbox_id() + ": " +
                                                       what + " ended: " + e.what());
    }
  }

  void try_answer(int status, const std::string& message) {
    if (answered_) return;
    try {
      answer_proxy_client(socket_, status, message);
    } catch (...) {
      // The client is gone.
    }
  }

  Poco::Net::StreamSocket& socket_;
  EgressProxy& proxy_;
  bool answered_ = false;
};

// A local sandbox's connection on the proxy's own Unix socket.
class ProxyConnection final : public Poco::Net::TCPServerConnection {
 public:
  ProxyConnection(const Poco::Net::StreamSocket& socket, EgressProxy& proxy)
      : Poco::Net::TCPServerConnection(socket), proxy_(proxy) {}
  ~ProxyConnection() override { proxy_.connection_ended(); }

  void run() override {
    std::string head, rest;
    try {
      head = read_proxy_head(socket(), rest, ReceiveDeadline(proxy_.limits().head_timeout));
    } catch (const ProxyRequestError& e) {
      if (e.status() == 408) proxy_.refused("request", e.what(), EgressRefusalKind::head_timeout);
      try {
        answer_proxy_client(socket(), e.status(), e.what());
      } catch (...) {
      }
      return;
    }
    if (head.empty()) return;
    proxy_.serve(socket(), head, std::move(rest));
  }

 private:
  EgressProxy& proxy_;
};

// Counts connections in as they are accepted (on the server's accept thread): past the cap,
// answers 429 without waiting for the client (it has sent nothing yet) and closes.
class ConnectionCap final : public Poco::Net::TCPServerConnectionFilter {
 public:
  explicit ConnectionCap(EgressProxy& proxy) : proxy_(proxy) {}
  bool accept(const Poco::Net::StreamSocket& socket) override {
    if (proxy_.admit_connection()) return true;
    const std::string reason = "this sandbox already has " +
                               std::to_string(proxy_.limits().max_connections) +
                               " connections open through the proxy (the most it may)";
    proxy_.refused("connection", reason, EgressRefusalKind::connection_limit);
    const std::string body = "kode-gopher egress proxy: " + reason + "\n";
    const std::string answer = "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; "
                               "charset=utf-8\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
                               body;
    // Never blocks the accept thread: a fresh socket's buffer takes this whole.
    [[maybe_unused]] const auto sent = ::send(socket.impl()->sockfd(), answer.data(),
                                              answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    return false;
  }

 private:
  EgressProxy& proxy_;
};

class ProxyConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  explicit ProxyConnectionFactory(EgressProxy& proxy) : proxy_(proxy) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new ProxyConnection(socket, proxy_);
  }

 private:
  EgressProxy& proxy_;
};

}  // namespace

EgressProxy::EgressProxy(std::string sandbox_id, const std::string& socket_path,
                         std::optional<uid_t> owner, EgressAllowlist allowlist,
                         plugin::Logger& logger, EgressProxyLimits limits,
                         std::shared_ptr<EgressTls> tls)
    : sandbox_id_(std::move(sandbox_id)),
      allowlist_(std::move(allowlist)),
      limits_(limits),
      tls_(std::move(tls)),
      logger_(logger),
      threads_(std::make_unique<Poco::ThreadPool>(1, limits.max_connections, 60)) {
  auto socket = net::listen_on_unix_socket(socket_path, 0600);
  if (owner && ::chown(socket_path.c_str(), *owner, static_cast<gid_t>(*owner)) != 0) {
    throw std::runtime_error("Cannot hand the egress proxy socket " + socket_path + " to uid " +
                             std::to_string(*owner) + ": " + std::strerror(errno));
  }
  auto* params = new Poco::Net::TCPServerParams;
  params->setMaxThreads(limits_.max_connections);
  params->setMaxQueued(limits_.max_connections);
  server_ = std::make_unique<Poco::Net::TCPServer>(new ProxyConnectionFactory(*this), *threads_,
                                                   socket, params);
  server_->setConnectionFilter(new ConnectionCap(*this));
  server_->start();
}

EgressProxy::EgressProxy(std::string sandbox_id, EgressAllowlist allowlist,
                         plugin::Logger& logger, EgressProxyLimits limits,
                         std::shared_ptr<EgressTls> tls)
    : sandbox_id_(std::move(sandbox_id)),
      allowlist_(std::move(allowlist)),
      limits_(limits),
      tls_(std::move(tls)),
      logger_(logger) {}

EgressProxy::~EgressProxy() {
  stopping_ = true;
  if (!server_) return;  // served by a gateway, which holds this proxy while it serves
  server_->stop();
  // Handlers notice `stopping` within half a second; wait for them, since they use this object.
  while (server_->currentConnections() > 0) ::usleep(20'000);
}

void EgressProxy::serve(Poco::Net::StreamSocket& socket, const std::string& head,
                        std::string rest) {
  ConnectionServer(socket, *this).run(head, std::move(rest));
}

bool EgressProxy::admit_connection() noexcept {
  if (open_connections_.fetch_add(1) < limits_.max_connections) return true;
  --open_connections_;
  return false;
}

void EgressProxy::refused(const std::string& what, const std::string& reason,
                          EgressRefusalKind kind) {
  const std::string line = "egress refused " + what + ": " + reason;
  logger_.log(plugin::LogLevel::warn, "Sandbox " + sandbox_id_ + ": " + line);
  const std::lock_guard lock(call_mutex_);
  ++refusal_counts_[std::string(egress_refusal_label(kind))];
  if (refusals_.size() < kMaxKeptRefusals) {
    refusals_.push_back(line);
  } else {
    ++dropped_refusals_;
  }
}

void EgressProxy::unreachable(const std::string& what, const std::string& reason) {
  const std::string line = "egress could not reach " + what + ": " + reason;
  logger_.log(plugin::LogLevel::warn, "Sandbox " + sandbox_id_ + ": " + line);
  const std::lock_guard lock(call_mutex_);
  if (refusals_.size() < kMaxKeptRefusals) {
    refusals_.push_back(line);
  } else {
    ++dropped_refusals_;
  }
}

void EgressProxy::exchange_started() {
  const std::lock_guard lock(in_flight_mutex_);
  ++in_flight_;
}

void EgressProxy::record_exchange(ApiExchange exchange) {
  {
    const std::lock_guard lock(call_mutex_);
    if (exchanges_.size() < EgressCallReport::kMaxKeptExchanges) {
      exchanges_.push_back(std::move(exchange));
    } else {
      ++dropped_exchanges_;
    }
  }
  const std::lock_guard lock(in_flight_mutex_);
  if (in_flight_ > 0) --in_flight_;
  in_flight_ended_.notify_all();
}

void EgressProxy::begin_call(EgressCallSetup setup) {
  const std::lock_guard lock(call_mutex_);
  setup_ = std::move(setup);
  refusals_.clear();
  dropped_refusals_ = 0;
  refusal_counts_.clear();
  exchanges_.clear();
  dropped_exchanges_ = 0;
}

EgressCallReport EgressProxy::end_call() {
  {
    // A request whose last byte the program already has may not be recorded yet (its handler
    // is a moment behind): wait for it, briefly, so the report holds what the program saw.
    std::unique_lock lock(in_flight_mutex_);
    in_flight_ended_.wait_for(lock, kInFlightWait, [this] { return in_flight_ == 0; });
  }
  const std::lock_guard lock(call_mutex_);
  EgressCallReport report;
  report.refusals = std::move(refusals_);
  refusals_.clear();
  report.refusal_counts = std::move(refusal_counts_);
  refusal_counts_.clear();
  if (dropped_refusals_ > 0) {
    report.refusals.push_back("... and " + std::to_string(dropped_refusals_) +
                              " more egress problems");
    dropped_refusals_ = 0;
  }
  report.exchanges = std::move(exchanges_);
  exchanges_.clear();
  report.exchanges_dropped = dropped_exchanges_;
  dropped_exchanges_ = 0;
  setup_ = {};
  return report;
}

EgressCallSetup EgressProxy::call_setup() const {
  const std::lock_guard lock(call_mutex_);
  return setup_;
}

}  // namespace kg::sandbox
