#include "egress_bridge.hpp"

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerParams.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "socket_relay.hpp"
#include "unique_fd.hpp"

namespace kg::sandbox {
namespace {

constexpr int kMaxConnections = 64;

UniqueFd connect_unix(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (fd.get() < 0 || path.size() >= sizeof address.sun_path) return UniqueFd();
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return UniqueFd();
  }
  return fd;
}

class BridgedConnection final : public Poco::Net::TCPServerConnection {
 public:
  BridgedConnection(const Poco::Net::StreamSocket& socket, const std::string& proxy_socket_path,
                    const std::atomic<bool>& stopping)
      : Poco::Net::TCPServerConnection(socket),
        proxy_socket_path_(proxy_socket_path),
        stopping_(stopping) {}

  void run() override {
    const UniqueFd proxy = connect_unix(proxy_socket_path_);
    if (proxy.get() < 0) {
      // Answer like a proxy would, so the client's error says what happened and what to do: Go's
      // HTTP client shows a program only the reason phrase of a failed CONNECT, never the body
      // (docs/egress.md).
      static const std::string kDown = [] {
        const std::string why =
            "kode-gopher sandbox: the daemon's egress proxy for this sandbox is gone (the "
            "daemon stopped or restarted, or closed the session); this is not the cloud API's "
            "answer: run the call again";
        const std::string body = why + "\r\n";
        return "HTTP/1.1 502 Bad Gateway (" + why +
               ")\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body;
      }();
      ::send(socket().impl()->sockfd(), kDown.data(), kDown.size(), MSG_NOSIGNAL);
      return;
    }
    net::relay_both_ways(socket().impl()->sockfd(), proxy.get(), stopping_);
  }

 private:
  const std::string& proxy_socket_path_;
  const std::atomic<bool>& stopping_;
};

class BridgedConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  BridgedConnectionFactory(const std::string& proxy_socket_path, const std::atomic<bool>& stopping)
      : proxy_socket_path_(proxy_socket_path), stopping_(stopping) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new BridgedConnection(socket, proxy_socket_path_, stopping_);
  }

 private:
  const std::string& proxy_socket_path_;
  const std::atomic<bool>& stopping_;
};

}  // namespace

EgressBridge::EgressBridge(std::string proxy_socket_path)
    : proxy_socket_path_(std::move(proxy_socket_path)), threads_(1, kMaxConnections + 1) {
  Poco::Net::ServerSocket socket;
  try {
    socket.bind(Poco::Net::SocketAddress("127.0.0.1", kEgressBridgePort), true);
    socket.listen(kMaxConnections);
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen on 127.0.0.1:" + std::to_string(kEgressBridgePort) +
                             " for the egress proxy bridge: " + e.displayText());
  }
  auto* params = new Poco::Net::TCPServerParams;
  params->setMaxThreads(kMaxConnections);
  params->setMaxQueued(kMaxConnections);
  server_ = std::make_unique<Poco::Net::TCPServer>(
      new BridgedConnectionFactory(proxy_socket_path_, stopping_), threads_, socket, params);
  server_->start();
}

EgressBridge::~EgressBridge() {
  stopping_ = true;
  server_->stop();
  threads_.joinAll();
}

std::vector<std::pair<std::string, std::string>> EgressBridge::environment() const {
  const std::string proxy = "http://127.0.0.1:" + std::to_string(kEgressBridgePort);
  const std::string direct = "localhost,127.0.0.1,::1";
  return {{"HTTPS_PROXY", proxy}, {"https_proxy", proxy}, {"HTTP_PROXY", proxy},
          {"http_proxy", proxy},  {"NO_PROXY", direct},   {"no_proxy", direct}};
}

}  // namespace kg::sandbox
