// The egress proxy for sandboxes that are not on this machine (Kubernetes pods): one TCP
// listener of the daemon's that every sandbox pod reaches (docs/kubernetes.md, "Egress through
// the daemon"), serving each connection with the EgressProxy of the call it belongs to, so the
// allowlist, the sealed token swap, the API policy and the audit hold per call as they do for a
// local sandbox's own proxy (egress_proxy.hpp).
//
// Which call a connection belongs to is told by a credential the daemon gives that call alone:
// for each call, admit() makes a user name (public, "kg-" and 16 random hex digits) and a secret
// (32 random bytes, base64url), and the call's commands get them in their proxy URL
// (HTTPS_PROXY=http://user:secret@host:port), which Go's net/http, gRPC-Go, curl and Python's
// requests send as `Proxy-Authorization: Basic ...` on every CONNECT and absolute-URI request.
// The gateway looks the user name up and compares the secret in constant time (CRYPTO_memcmp);
// revoke() ends the credential when the call ends. A connection without a valid credential is
// answered 407 and served by no call. Why not the pod's address: pod IPs are reused as soon as
// a pod is gone, may be rewritten by a node's NAT or a service mesh on the way, and in the k8s
// suite's cluster every pod shares one network; a secret only the call's own pod was given
// cannot be presented by another pod (the sandbox NetworkPolicy keeps every other workload
// from reaching the gateway at all).
//
// Threads: one per open connection, at most max_connections for all sandboxes together; each
// call's proxy still caps its own connections (EgressProxyLimits::max_connections, 429 past it).
// admit() and revoke() may be called from any thread.
#pragma once

#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "egress_proxy.hpp"
#include "host_services.hpp"

namespace kg::sandbox {

struct EgressGatewayOptions {
  std::string host = "0.0.0.0";  // the address to listen on
  std::uint16_t port = 3128;     // 0: a free port (tests)
  int max_connections = 512;     // open at once, for every sandbox together
  // For a connection's request head, before it is known whose it is.
  std::chrono::milliseconds head_timeout = std::chrono::seconds(10);
};

// What one call's commands put in their proxy URL.
struct EgressCallCredential {
  std::string user;
  std::string secret;
};

class EgressGateway {
 public:
  // Listens at once. Throws std::runtime_error naming the address when it cannot. `logger`
  // must outlive the gateway.
  EgressGateway(EgressGatewayOptions options, plugin::Logger& logger);
  // Stops accepting and ends every connection (each call's proxy is stopped).
  ~EgressGateway();
  EgressGateway(const EgressGateway&) = delete;
  EgressGateway& operator=(const EgressGateway&) = delete;

  // The port it listens on (the one asked for, or the free one it got).
  std::uint16_t port() const noexcept { return port_; }

  // Connections presenting the returned credential are served by `proxy` until revoke().
  EgressCallCredential admit(std::shared_ptr<EgressProxy> proxy);
  // Ends a credential: later connections presenting it get 407; ones being served go on until
  // their proxy is stopped. Unknown users are ignored.
  void revoke(const std::string& user) noexcept;

  // The proxy a Proxy-Authorization value names, or null (missing, malformed, unknown user,
  // wrong secret). Used by the connection handlers.
  std::shared_ptr<EgressProxy> proxy_for(const std::string& proxy_authorization) const;
  plugin::Logger& logger() noexcept { return logger_; }
  const EgressGatewayOptions& options() const noexcept { return options_; }

 private:
  struct Admitted {
    std::string secret;
    std::shared_ptr<EgressProxy> proxy;
  };
  EgressGatewayOptions options_;
  plugin::Logger& logger_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::map<std::string, Admitted> admitted_;  // by user name
  Poco::ThreadPool threads_;                  // before server_: its connections run on these
  std::unique_ptr<Poco::Net::TCPServer> server_;
};

}  // namespace kg::sandbox
