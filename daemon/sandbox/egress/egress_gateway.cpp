#include "egress_gateway.hpp"

#include <Poco/Base64Decoder.h>
#include <Poco/Exception.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerParams.h>
#include <Poco/RandomStream.h>
#include <openssl/crypto.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "base64url.hpp"
#include "egress_proxy_request.hpp"

namespace kg::sandbox {
namespace {

std::string random_bytes(std::size_t count) {
  std::string bytes(count, '\0');
  Poco::RandomInputStream random;
  random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

std::string new_user() {
  std::string text = "kg-";
  for (const unsigned char byte : random_bytes(8)) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", byte);
    text += hex;
  }
  return text;
}

// "Basic base64(user:secret)" -> {user, secret}; nullopt when it is not that.
std::optional<std::pair<std::string, std::string>> basic_credentials(const std::string& value) {
  constexpr std::string_view kScheme = "basic ";
  if (value.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(value[i])) != kScheme[i]) return std::nullopt;
  }
  std::string decoded;
  try {
    std::istringstream in(value.substr(kScheme.size()));
    Poco::Base64Decoder decoder(in);
    decoded.assign(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
  const auto colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::make_pair(decoded.substr(0, colon), decoded.substr(colon + 1));
}

void answer_quietly(Poco::Net::StreamSocket& socket, int status, const std::string& message) {
  try {
    answer_proxy_client(socket, status, message);
  } catch (...) {
    // The client is gone.
  }
}

class GatewayConnection final : public Poco::Net::TCPServerConnection {
 public:
  GatewayConnection(const Poco::Net::StreamSocket& socket, EgressGateway& gateway)
      : Poco::Net::TCPServerConnection(socket), gateway_(gateway) {}

  void run() override {
    std::string head, rest;
    std::shared_ptr<EgressProxy> proxy;
    // The pod's side is TCP here (a Unix socket for local sandboxes): without TCP_NODELAY a
    // terminated tunnel's small TLS records wait for ACKs (Nagle), as upstream (egress_proxy.cpp).
    try {
      socket().setNoDelay(true);
    } catch (const Poco::Exception&) {
      // The pod is already gone: read_proxy_head says so below.
    }
    try {
      head = read_proxy_head(socket(), rest, ReceiveDeadline(gateway_.options().head_timeout));
      if (head.empty()) return;
      proxy = gateway_.proxy_for(proxy_authorization(head));
    } catch (const ProxyRequestError& e) {
      answer_quietly(socket(), e.status(), e.what());
      return;
    }
    if (!proxy) {
      // Not any call's: nothing to report it to but the log.
      gateway_.logger().log(plugin::LogLevel::warn,
                            "Egress gateway: refused a connection from " +
                                socket().peerAddress().toString() +
                                " without the credential of a running call");
      answer_quietly(socket(), 407,
                     "this connection carries no credential of a running call: use the "
                     "HTTPS_PROXY the call's command was given (it names the call)");
      return;
    }
    if (!proxy->admit_connection()) {
      const std::string reason = "this sandbox already has " +
                                 std::to_string(proxy->limits().max_connections) +
                                 " connections open through the proxy (the most it may)";
      proxy->refused("connection", reason, EgressRefusalKind::connection_limit);
      answer_quietly(socket(), 429, reason);
      return;
    }
    proxy->serve(socket(), head, std::move(rest));
    proxy->connection_ended();
  }

 private:
  EgressGateway& gateway_;
};

class GatewayConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  explicit GatewayConnectionFactory(EgressGateway& gateway) : gateway_(gateway) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new GatewayConnection(socket, gateway_);
  }

 private:
  EgressGateway& gateway_;
};

}  // namespace

EgressGateway::EgressGateway(EgressGatewayOptions options, plugin::Logger& logger)
    : options_(std::move(options)),
      logger_(logger),
      threads_(1, options_.max_connections, 60) {
  Poco::Net::ServerSocket socket;
  try {
    socket.bind(Poco::Net::SocketAddress(options_.host, options_.port), true);
    socket.listen(64);
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen for sandboxes' egress on " + options_.host + ":" +
                             std::to_string(options_.port) + ": " + e.displayText());
  }
  port_ = socket.address().port();
  auto* params = new Poco::Net::TCPServerParams;
  params->setMaxThreads(options_.max_connections);
  params->setMaxQueued(options_.max_connections);
  server_ = std::make_unique<Poco::Net::TCPServer>(new GatewayConnectionFactory(*this), threads_,
                                                   socket, params);
  server_->start();
}

EgressGateway::~EgressGateway() {
  {
    const std::lock_guard lock(mutex_);
    for (auto& [user, admitted] : admitted_) admitted.proxy->stop();
  }
  server_->stop();
  // Served connections notice their proxy's `stopping` within half a second; one still reading
  // its head gives up at head_timeout. They use this object: wait for them.
  while (server_->currentConnections() > 0) ::usleep(20'000);
}

EgressCallCredential EgressGateway::admit(std::shared_ptr<EgressProxy> proxy) {
  EgressCallCredential credential{new_user(), codec::base64url_encode(random_bytes(32))};
  const std::lock_guard lock(mutex_);
  admitted_[credential.user] = Admitted{credential.secret, std::move(proxy)};
  return credential;
}

void EgressGateway::revoke(const std::string& user) noexcept {
  const std::lock_guard lock(mutex_);
  admitted_.erase(user);
}

std::shared_ptr<EgressProxy> EgressGateway::proxy_for(const std::string& proxy_authorization) const {
  const auto credentials = basic_credentials(proxy_authorization);
  if (!credentials) return nullptr;
  const auto& [user, secret] = *credentials;
  const std::lock_guard lock(mutex_);
  const auto found = admitted_.find(user);
  if (found == admitted_.end()) return nullptr;
  const std::string& expected = found->second.secret;
  // Every secret has the same length, so comparing lengths first tells an attacker nothing.
  if (secret.size() != expected.size() ||
      CRYPTO_memcmp(secret.data(), expected.data(), expected.size()) != 0) {
    return nullptr;
  }
  return found->second.proxy;
}

}  // namespace kg::sandbox
