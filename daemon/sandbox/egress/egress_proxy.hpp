// The daemon's egress proxy for one sandbox with [sandbox] network = allowlist (docs/egress.md):
// an HTTP proxy on a Unix socket in the sandbox's folder, bound into the sandbox, where the
// sandbox server's bridge (sandbox/server/egress_bridge.hpp) relays the programs' connections.
// It admits CONNECT host:port (HTTPS, gRPC over HTTP/2) and absolute-URI http:// requests only
// for hosts (net::Host: a DNS name or an IP literal, nothing else) EgressAllowlist admits,
// resolves each name itself and connects only to the addresses it checked (so a DNS answer
// cannot change between check and use), checks that a tunnel to a name starts with a TLS
// ClientHello asking for that very name (no domain fronting), and refuses — with 403, a log line
// and a recorded refusal naming the host asked for — targets that are not hosts, names off the
// list, IP literals, and names resolving to any loopback, private, shared, link-local,
// multicast, metadata or host address.
//
// With an EgressTls (sealed credentials, docs/egress.md), a tunnel to a Google API host
// (is_google_api_host) is never relayed blindly (plan_tunnel): when its client offers h2 or
// HTTP/1.1 (or no ALPN) the proxy terminates its TLS with a certificate from the daemon's CA, verifies the real upstream, and
// relays each request or stream (egress_http1_relay.hpp, egress_http2_relay.hpp): the call's
// `refuse` sees it, the sealed placeholder is replaced by the real token, and an ApiExchange is
// recorded; any other such tunnel is refused. Other tunnels are relayed as before.
//
// Owned by the sandbox it serves. A local sandbox's proxy listens on its own Unix socket, with
// its own threads, one per open connection, at most EgressProxyLimits::max_connections (the next
// connection is answered 429), so one sandbox cannot take another's. A Kubernetes sandbox's
// proxy has no listener: the daemon's EgressGateway (egress_gateway.hpp) reads each
// connection's head, finds the call it belongs to by its proxy credential, and hands it to
// serve(), counted against the same max_connections. begin_call(), end_call() and call_setup()
// may be called from any thread.
#pragma once

#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "egress_allowlist.hpp"
#include "egress_call.hpp"
#include "egress_tls.hpp"
#include "egress_tunnel_check.hpp"
#include "host_services.hpp"

namespace kg::sandbox {

// What one sandbox's proxy allows itself (docs/egress.md, "Limits per sandbox").
struct EgressProxyLimits {
  int max_connections = 32;  // open at once; one more is answered 429 and closed
  // For the whole request head, and for the TLS ClientHello that must start a tunnel to a name.
  std::chrono::milliseconds head_timeout = std::chrono::seconds(10);
  // A tunnel or forwarded request with no byte either way for this long is closed.
  std::chrono::milliseconds idle_timeout = std::chrono::minutes(5);
};

class EgressProxy {
 public:
  // Listens on socket_path (mode 0600; owned by `owner` when set, the sandbox's host uid, so
  // bubblewrap and the sandbox can connect). Throws std::runtime_error naming the path when
  // the socket cannot be made. `logger` must outlive the proxy.
  EgressProxy(std::string sandbox_id, const std::string& socket_path, std::optional<uid_t> owner,
              EgressAllowlist allowlist, plugin::Logger& logger, EgressProxyLimits limits = {},
              std::shared_ptr<EgressTls> tls = nullptr);
  // No listener of its own: connections come through serve() (an EgressGateway's).
  EgressProxy(std::string sandbox_id, EgressAllowlist allowlist, plugin::Logger& logger,
              EgressProxyLimits limits = {}, std::shared_ptr<EgressTls> tls = nullptr);
  // Stops accepting and ends every open connection (within half a second).
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Starts one call: drops what earlier calls left and keeps `setup` for this call's requests.
  void begin_call(EgressCallSetup setup);
  // Ends it (after waiting up to kInFlightWait for requests in flight to be recorded): the
  // refusals and unreachable hosts since begin_call, one line each ("egress refused CONNECT
  // 10.0.0.1:443: IP address literals are refused ...", "egress could not reach CONNECT ..."),
  // at most kMaxKeptRefusals plus a count of the rest,
  // and the API exchanges the proxy read.
  EgressCallReport end_call();
  // The current call's setup (empty between calls); a copy, so a handler keeps what it read.
  EgressCallSetup call_setup() const;

  // Serves one admitted connection (admit_connection) whose request head was read
  // (read_proxy_head), to its end; `rest` is what followed the head. Never throws: failures are
  // answered to the program. The caller counts the connection out (connection_ended) after.
  void serve(Poco::Net::StreamSocket& socket, const std::string& head, std::string rest);
  // Makes every connection being served end within half a second (they watch stopping()).
  void stop() noexcept { stopping_ = true; }

  // Records, counts and logs one refusal (called by the connection handlers).
  void refused(const std::string& what, const std::string& reason, EgressRefusalKind kind);
  // Records and logs an allowed host the proxy could not reach (its name did not resolve on the
  // daemon's machine, or no address answered): a line of the call's report beside the
  // refusals ("egress could not reach CONNECT …"), so the call gets a warning, but no refusal
  // is counted (it was not a policy decision).
  void unreachable(const std::string& what, const std::string& reason);
  // Counts a request in flight (its head was read); record_exchange() counts it out.
  void exchange_started();
  // Keeps one request's exchange for the call's report (at most kMaxKeptExchanges, the rest
  // counted); called by the connection handlers when a request ends.
  void record_exchange(ApiExchange exchange);
  // Counts a new connection in; false (and nothing counted) when max_connections are open.
  bool admit_connection() noexcept;
  // Counts an admitted connection out (its handler, when it ends).
  void connection_ended() noexcept { --open_connections_; }

  const std::string& sandbox_id() const noexcept { return sandbox_id_; }
  const EgressAllowlist& allowlist() const noexcept { return allowlist_; }
  const EgressProxyLimits& limits() const noexcept { return limits_; }
  const std::atomic<bool>& stopping() const noexcept { return stopping_; }
  plugin::Logger& logger() noexcept { return logger_; }
  // Null: every tunnel is relayed blindly.
  EgressTls* tls() const noexcept { return tls_.get(); }

  static constexpr std::size_t kMaxKeptRefusals = 20;
  static constexpr std::chrono::milliseconds kInFlightWait{1000};

 private:
  const std::string sandbox_id_;
  const EgressAllowlist allowlist_;
  const EgressProxyLimits limits_;
  const std::shared_ptr<EgressTls> tls_;
  plugin::Logger& logger_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> open_connections_{0};  // admitted, not yet ended
  mutable std::mutex call_mutex_;  // guards the call's setup and everything it gathers
  EgressCallSetup setup_;
  std::vector<std::string> refusals_;
  std::size_t dropped_refusals_ = 0;
  std::map<std::string, std::uint64_t> refusal_counts_;  // every refusal of the call, by kind
  std::vector<ApiExchange> exchanges_;
  std::uint64_t dropped_exchanges_ = 0;
  std::mutex in_flight_mutex_;  // apart from call_mutex_: end_call waits on it
  std::condition_variable in_flight_ended_;
  int in_flight_ = 0;
  // Before server_: its connections run on these threads. Both null for a gateway's proxy.
  std::unique_ptr<Poco::ThreadPool> threads_;
  std::unique_ptr<Poco::Net::TCPServer> server_;
};

// Reads until the blank line that ends a proxy request head. Returns the head; what followed it
// (the start of a body, or a TLS ClientHello sent without waiting) goes to `rest`. Empty: the
// peer gave up. Throws ProxyRequestError 408 when the head is not complete by `deadline`, 431
// when it is larger than 16 KB.
std::string read_proxy_head(Poco::Net::StreamSocket& socket, std::string& rest,
                            const ReceiveDeadline& deadline);
// Answers a proxy request `status` with `message` (in the body and the reason phrase) and
// "Connection: close". Throws when the client is gone.
void answer_proxy_client(Poco::Net::StreamSocket& socket, int status, const std::string& message);

}  // namespace kg::sandbox
