// What a sandbox's egress filter is told at the start of one call and what it reports at its end
// (docs/egress.md). The provider seam carries it so the session layer never needs to know how a
// provider filters egress: the local provider's proxy, or none (Kubernetes today).
//
// The filter knows HTTP, not Google APIs: it hands each request it can read (a request to an
// allowed host whose TLS the proxy terminates) to `refuse`, which the session layer builds from
// the call's API policy, and reports what it forwarded or refused as ApiExchange records, which
// the session layer classifies into the call's `api_calls`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kg::sandbox {

// Sealed credentials (docs/credentials.md): the sandbox holds only `placeholder`; the proxy puts
// `access_token` in its place in the Authorization header of requests to allowed Google API hosts.
struct SealedToken {
  std::string placeholder;
  std::string access_token;
  std::chrono::system_clock::time_point expiry;
};

// One HTTP request the proxy read (HTTP/1.1 or one HTTP/2 stream), as sent by the program.
struct ApiRequestFacts {
  std::string host;         // the validated host name the request went to
  std::string http_method;  // GET, POST, ... (POST for every gRPC call)
  std::string path;         // the request target: path and query, as sent (origin-form)
  bool grpc = false;        // content-type application/grpc*: `path` is /package.Service/Method
  std::string request_params;  // the x-goog-request-params header (URL-encoded), if any
  // The request body when it is JSON and at most 64 KiB (read-only POSTs such as dry runs are
  // told apart by it); empty otherwise.
  std::string json_body;
};

// What happened to one request.
struct ApiExchange {
  ApiRequestFacts request;
  std::optional<std::string> refusal;  // set: refused before it left, with the rule that did
  int http_status = 0;                 // the status the program saw
  std::optional<int> grpc_status;      // grpc-status of a gRPC answer, when one came
  std::uint64_t request_bytes = 0;     // body bytes each way
  std::uint64_t response_bytes = 0;
  std::uint64_t duration_us = 0;       // from the request's head to the end of its answer
};

struct EgressCallSetup {
  std::optional<SealedToken> sealed;  // none: the sandbox holds its own token or none at all
  // Called for every request the proxy can read, before it is forwarded; a value refuses it with
  // that message (naming the rule). Empty: nothing is refused on the request's content.
  std::function<std::optional<std::string>(const ApiRequestFacts&)> refuse;
};

// Why the filter refused a connection, as /metrics labels it (docs/metrics.md): a fixed set, so
// the counts name no host a program asked for.
enum class EgressRefusalKind {
  host_not_allowed,    // a name off [sandbox] allowed_hosts
  port_not_allowed,    // a port off [sandbox] allowed_ports
  ip_literal,          // an IP address not listed as such
  address_not_public,  // a name resolving to a loopback, private, metadata or host address
  bad_target,          // not a host at all
  tls_hello,           // a tunnel without a readable ClientHello for the name it asked for
  tls_to_proxy,        // the program did not complete TLS with the proxy (sealed credentials)
  upstream_tls,        // the real upstream could not be reached securely
  head_timeout,        // no complete request head in time
  connection_limit,    // the sandbox had the most connections open it may
};
std::string_view egress_refusal_label(EgressRefusalKind kind) noexcept;

struct EgressCallReport {
  // Connection-level refusals and allowed hosts the proxy could not reach, one line each
  // (allowlist); each becomes a warning on the call.
  std::vector<std::string> refusals;
  // Every refusal of the call by kind (egress_refusal_label), those past the kept lines too.
  std::map<std::string, std::uint64_t> refusal_counts;
  std::vector<ApiExchange> exchanges;  // at most kMaxKeptExchanges, in the order they ended
  std::uint64_t exchanges_dropped = 0; // past that bound
  static constexpr std::size_t kMaxKeptExchanges = 500;
};

}  // namespace kg::sandbox
