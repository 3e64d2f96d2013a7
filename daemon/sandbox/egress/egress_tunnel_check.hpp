// What the egress proxy reads from a client before it relays anything, bounded in time, and the
// check of the TLS ClientHello that starts a tunnel (no domain fronting: docs/egress.md, step 5).
// Used by EgressProxy's connection handlers, each on its own thread.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

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

// How the proxy serves a tunnel whose first bytes check_tunnel_hello admitted. With TLS
// terminated for Google API hosts (`terminating`: an EgressTls, docs/egress.md "Sealed
// credentials"), a tunnel to such a host is never relayed unread, since a blind tunnel would
// carry a program's own token past the API policy and the audit (access-token and forwarded
// modes): it is terminated when the client speaks a protocol the proxy relays (ALPN h2 or
// http/1.1, or no ALPN at all: HTTP/1.1), else refused. So is a tunnel to an IP literal whose
// ClientHello asks for a Google API host: the proxy terminates only tunnels by name.
struct TunnelPlan {
  bool terminate = false;
  std::optional<EgressRefusal> refusal;  // set: refuse (terminate is false)
  // The TLS alert (RFC 8446 §6) a refused client gets before the tunnel closes, so its TLS
  // library names the reason (the proxy's 200 was already sent): no_application_protocol (120)
  // or access_denied (49).
  unsigned char alert = 0;
};
TunnelPlan plan_tunnel(std::string_view first_bytes, const net::Host& host, bool terminating);

// A fatal TLS alert record with `description` (RFC 8446 §6), as a TLS 1.2 record header.
std::string tls_fatal_alert(unsigned char description);

}  // namespace kg::sandbox
