// The sandbox's only way out under [sandbox] network = allowlist (docs/contracts.md §8): a TCP
// listener on 127.0.0.1:3128 of the sandbox's own network namespace that relays each connection,
// byte for byte, to the daemon's egress proxy through a Unix socket the host bound into the
// sandbox. The namespace has no other interface than lo and no route, so the proxy — which
// admits only allowed host names and ports — is all a program can reach. The bridge does not
// read what it relays; the proxy on the host decides.
//
// Owned by SandboxServer for the life of the server; connections are relayed on its own threads.
#pragma once

#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kg::sandbox {

inline constexpr int kEgressBridgePort = 3128;

class EgressBridge {
 public:
  // Starts listening on 127.0.0.1:kEgressBridgePort. Throws std::runtime_error when the port
  // cannot be bound. The socket is connected anew for every relayed connection, so the proxy
  // may come and go.
  explicit EgressBridge(std::string proxy_socket_path);
  ~EgressBridge();
  EgressBridge(const EgressBridge&) = delete;
  EgressBridge& operator=(const EgressBridge&) = delete;

  // What every command's environment gets so that Go's net/http, gRPC-Go, curl and Python
  // clients use the proxy: HTTPS_PROXY, HTTP_PROXY (and their lowercase forms curl reads) and
  // NO_PROXY for the sandbox's own loopback (the metadata emulator).
  std::vector<std::pair<std::string, std::string>> environment() const;

 private:
  std::string proxy_socket_path_;
  std::atomic<bool> stopping_{false};
  Poco::ThreadPool threads_;
  std::unique_ptr<Poco::Net::TCPServer> server_;
};

}  // namespace kg::sandbox
