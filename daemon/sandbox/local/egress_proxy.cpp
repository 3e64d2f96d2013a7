#include "egress_proxy.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerParams.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "egress_proxy_request.hpp"
#include "socket_relay.hpp"
#include "tls_client_hello.hpp"
#include "unix_socket_listener.hpp"

namespace kg::sandbox {
namespace {

constexpr std::size_t kMaxHeadBytes = 16 * 1024;
constexpr int kMaxConnectionsPerSandbox = 32;
const Poco::Timespan kHeadTimeout(30, 0);
const Poco::Timespan kConnectTimeout(10, 0);

// A refusal the handler answers with 403 after recording it.
struct Refused {
  std::string reason;
};

// Reads until the blank line that ends a head. Returns the head; what followed it (the start of
// a body, or a TLS ClientHello sent without waiting) goes to `rest`. Empty: the peer gave up.
std::string read_head(Poco::Net::StreamSocket& socket, std::string& rest) {
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
    const int got = socket.receiveBytes(buffer, sizeof buffer);
    if (got <= 0) return {};
    data.append(buffer, static_cast<std::size_t>(got));
  }
}

void send_all(Poco::Net::StreamSocket& socket, std::string_view bytes) {
  if (!bytes.empty()) socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
}

void answer(Poco::Net::StreamSocket& socket, int status, const std::string& message) {
  Poco::Net::HTTPResponse response(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  const std::string body = "kode-gopher egress proxy: " + message + "\n";
  response.setContentType("text/plain; charset=utf-8");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.set("Connection", "close");
  std::ostringstream head;
  response.write(head);
  send_all(socket, head.str() + body);
}

// Every address `host` resolves to (an IP literal is its own), each checked; throws Refused
// when any one is refused, so a name with one private answer among public ones is refused too.
std::vector<Poco::Net::SocketAddress> checked_addresses(const std::string& host, int port) {
  std::vector<Poco::Net::IPAddress> addresses;
  Poco::Net::IPAddress literal;
  if (Poco::Net::IPAddress::tryParse(host, literal)) {
    addresses.push_back(literal);
  } else if (is_ip_literal(host)) {
    // "127.1", "2130706433": inet_aton forms that only a resolver turns into addresses.
    throw Refused{"IP address literals in abbreviated or numeric form are refused"};
  } else {
    try {
      addresses = Poco::Net::DNS::hostByName(host).addresses();
    } catch (const Poco::Exception& e) {
      throw ProxyRequestError(502, "Cannot resolve " + host + ": " + e.displayText());
    }
  }
  const auto host_addresses = host_interface_addresses();
  std::vector<Poco::Net::SocketAddress> checked;
  for (const auto& address : addresses) {
    const Poco::Net::SocketAddress target(address, static_cast<Poco::UInt16>(port));
    if (const auto reason = refused_address(target.addr(), host_addresses)) {
      throw Refused{host + " resolves to " + address.toString() + ": " + *reason};
    }
    checked.push_back(target);
  }
  if (checked.empty()) throw ProxyRequestError(502, "Cannot resolve " + host + ": no address");
  return checked;
}

Poco::Net::StreamSocket connect_to_first(const std::vector<Poco::Net::SocketAddress>& addresses,
                                         const std::string& host) {
  std::string failures;
  for (const auto& address : addresses) {
    try {
      Poco::Net::StreamSocket upstream;
      upstream.connect(address, kConnectTimeout);
      return upstream;
    } catch (const Poco::Exception& e) {
      failures += (failures.empty() ? "" : "; ") + address.toString() + ": " + e.displayText();
    }
  }
  throw ProxyRequestError(502, "Cannot connect to " + host + " (" + failures + ")");
}

// The first bytes a client sends into a tunnel, read far enough to check the TLS server name it
// asks for: it must be the CONNECT host, or one allowed name would carry requests for any other
// name its front end serves (domain fronting). Throws Refused; returns what was read, which goes
// upstream first. A client that sends nothing for kHeadTimeout (a protocol where the server
// speaks first) or does not speak TLS is not checked.
std::string check_tunnel_server_name(Poco::Net::StreamSocket& client, std::string first,
                                     const std::string& host) {
  char buffer[4096];
  const auto read_more = [&] {
    const int got = client.receiveBytes(buffer, sizeof buffer);
    if (got > 0) first.append(buffer, static_cast<std::size_t>(got));
    return got > 0;
  };
  try {
    while (first.size() < 5) {
      if (!read_more()) return first;
    }
    if (!starts_tls_handshake(first)) return first;
    const std::size_t size = tls_record_size(first);
    while (first.size() < size) {
      if (!read_more()) return first;
    }
    std::optional<std::string> name;
    try {
      name = tls_server_name(std::string_view(first).substr(0, size));
    } catch (const std::invalid_argument& e) {
      throw Refused{std::string("its TLS ClientHello could not be read (") + e.what() + ")"};
    }
    if (name && normalize_host(*name) != host) {
      throw Refused{"the TLS server name " + *name + " inside the tunnel is not " + host};
    }
  } catch (const Poco::TimeoutException&) {
    // Nothing sent yet: no name to check.
  }
  return first;
}

class ProxyConnection final : public Poco::Net::TCPServerConnection {
 public:
  ProxyConnection(const Poco::Net::StreamSocket& socket, EgressProxy& proxy)
      : Poco::Net::TCPServerConnection(socket), proxy_(proxy) {}

  void run() override {
    auto& client = socket();
    std::string what = "request";
    try {
      client.setReceiveTimeout(kHeadTimeout);
      std::string rest;
      const std::string head = read_head(client, rest);
      if (head.empty()) return;
      const ProxyRequest request = parse_proxy_request(head);
      what = (request.tunnel ? "CONNECT " : "http://") + request.host + ":" +
             std::to_string(request.port);
      if (const auto reason = proxy_.allowlist().refuse_name(request.host, request.port)) {
        throw Refused{*reason};
      }
      auto upstream = connect_to_first(checked_addresses(request.host, request.port), request.host);
      answered_ = true;
      if (request.tunnel) {
        send_all(client, "HTTP/1.1 200 Connection established\r\n\r\n");
        send_all(upstream, check_tunnel_server_name(client, rest, request.host));
      } else {
        // Upstream was told "Connection: close", so it closes after its answer (RFC 9112 §9.6)
        // and the relay ends there: a next request, perhaps for another host, never goes
        // down this connection.
        send_all(upstream, request.upstream_head + rest);
      }
      net::relay_both_ways(client.impl()->sockfd(), upstream.impl()->sockfd(), proxy_.stopping());
    } catch (const Refused& refusal) {
      proxy_.refused(what, refusal.reason);
      try_answer(403, "refused " + what + ": " + refusal.reason);
    } catch (const ProxyRequestError& e) {
      try_answer(e.status(), e.what());
    } catch (const Poco::Exception& e) {
      try_answer(502, what + ": " + e.displayText());
    } catch (const std::exception& e) {
      try_answer(502, what + ": " + e.what());
    }
  }

 private:
  void try_answer(int status, const std::string& message) {
    if (answered_) return;
    try {
      answer(socket(), status, message);
    } catch (...) {
      // The client is gone.
    }
  }

  EgressProxy& proxy_;
  bool answered_ = false;
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
                         Poco::ThreadPool& threads, plugin::Logger& logger)
    : sandbox_id_(std::move(sandbox_id)), allowlist_(std::move(allowlist)), logger_(logger) {
  auto socket = net::listen_on_unix_socket(socket_path, 0600);
  if (owner && ::chown(socket_path.c_str(), *owner, static_cast<gid_t>(*owner)) != 0) {
    throw std::runtime_error("Cannot hand the egress proxy socket " + socket_path + " to uid " +
                             std::to_string(*owner) + ": " + std::strerror(errno));
  }
  auto* params = new Poco::Net::TCPServerParams;
  params->setMaxThreads(kMaxConnectionsPerSandbox);
  params->setMaxQueued(kMaxConnectionsPerSandbox);
  server_ = std::make_unique<Poco::Net::TCPServer>(new ProxyConnectionFactory(*this), threads,
                                                   socket, params);
  server_->start();
}

EgressProxy::~EgressProxy() {
  stopping_ = true;
  server_->stop();
  // Handlers notice `stopping` within half a second; wait for them, since they use this object.
  while (server_->currentConnections() > 0) ::usleep(20'000);
}

void EgressProxy::refused(const std::string& what, const std::string& reason) {
  const std::string line = "egress refused " + what + ": " + reason;
  logger_.log(plugin::LogLevel::warn, "Sandbox " + sandbox_id_ + ": " + line);
  const std::lock_guard lock(refusals_mutex_);
  if (refusals_.size() < kMaxKeptRefusals) {
    refusals_.push_back(line);
  } else {
    ++dropped_refusals_;
  }
}

std::vector<std::string> EgressProxy::take_refusals() {
  const std::lock_guard lock(refusals_mutex_);
  std::vector<std::string> taken = std::move(refusals_);
  refusals_.clear();
  if (dropped_refusals_ > 0) {
    taken.push_back("... and " + std::to_string(dropped_refusals_) + " more egress refusals");
    dropped_refusals_ = 0;
  }
  return taken;
}

}  // namespace kg::sandbox
