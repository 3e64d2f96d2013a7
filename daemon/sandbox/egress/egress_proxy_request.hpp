// The first request a program sends the egress proxy, read from its head: CONNECT host:port (a
// tunnel, for HTTPS and gRPC) or an absolute-URI request (GET http://host/path, plain HTTP).
// Pure parsing, so every malformed form is tested without sockets; EgressProxy acts on it.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "host_name.hpp"

namespace kg::sandbox {

// A request the proxy answers with `status` and the message (400, 405, 501...).
class ProxyRequestError : public std::runtime_error {
 public:
  ProxyRequestError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

// A request whose target is not a host (net::Host): a policy refusal, answered 403, logged and
// reported like any other. `target` is how the request named it, escaped (net::printable).
class ProxyTargetRefused : public ProxyRequestError {
 public:
  ProxyTargetRefused(std::string target, const std::string& reason)
      : ProxyRequestError(403, reason), target_(std::move(target)) {}
  const std::string& target() const noexcept { return target_; }

 private:
  std::string target_;
};

struct ProxyRequest {
  bool tunnel = false;  // CONNECT
  net::Host host;       // the name or address asked for, validated and canonical
  int port = 0;
  // For an absolute-URI request: the head to send upstream, in origin form (GET /path HTTP/1.1),
  // with the proxy's own headers (Proxy-Authorization, Proxy-Connection) dropped, Host set to
  // the target and "Connection: close", so one connection carries one request to one host.
  std::string upstream_head;
};

// `head` is everything up to and including the blank line ("\r\n\r\n"). Throws
// ProxyRequestError: not HTTP (400), a CONNECT target without a port (400), a scheme other than
// http in an absolute URI (400: HTTPS goes through CONNECT), an origin-form request (400: this
// is a proxy), another method form (405); ProxyTargetRefused when the host is not a DNS name
// or an IP literal (a NUL, '%', '_' or non-ASCII byte, "127.1", ...).
ProxyRequest parse_proxy_request(std::string_view head);

// The Proxy-Authorization header of a request head (empty when it has none): how a Kubernetes
// sandbox's connection names its call (egress_gateway.hpp). Throws ProxyRequestError 400 when
// `head` is not an HTTP request head.
std::string proxy_authorization(std::string_view head);

}  // namespace kg::sandbox
