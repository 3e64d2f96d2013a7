// What the egress proxy reads from a client before it relays anything, bounded in time, and the
// check of the TLS ClientHello that starts a tunnel (no domain fronting: docs/egress.md, step 5).
// Used by EgressProxy's connection handlers, each on its own thread.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <string>

#include "egress_allowlist.hpp"
#include "host_name.hpp"

namespace kg::sandbox {

// One deadline for a series of reads (a request head, a ClientHello): a client that trickles
// bytes cannot stretch it, unlike a per-read timeout.
class ReceiveDeadline {
 public:
  explicit ReceiveDeadline(std::chrono::milliseconds within)
      : within_(within), end_(std::chrono::steady_clock::now() + within) {}
  // Like StreamSocket::receiveBytes (0: the peer closed). Throws Poco::TimeoutException once
  // the deadline has passed.
  int receive(Poco::Net::StreamSocket& socket, char* buffer, int size) const;
  // "within 10 s", for messages.
  std::string within_text() const;

 private:
  std::chrono::milliseconds within_;
  std::chrono::steady_clock::time_point end_;
};

// Reads the first bytes a client sends into a tunnel to `host`:`port` (starting from `first`,
// what came after the CONNECT head) far enough to check its TLS ClientHello, and returns them
// (they go upstream first). A tunnel to a name must start, before `deadline`, with one complete,
// well-formed ClientHello whose server name is that name; a tunnel to an IP literal may carry
// anything, but a ClientHello in it may only name a host the allowlist admits. Throws
// EgressRefusal saying which rule was broken.
std::string check_tunnel_hello(Poco::Net::StreamSocket& client, std::string first,
                               const net::Host& host, int port, const EgressAllowlist& allowlist,
                               const ReceiveDeadline& deadline);

}  // namespace kg::sandbox
