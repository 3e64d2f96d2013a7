// HTTP/1.1 between a program and a Google API host, inside TLS the egress proxy terminated
// (docs/egress.md, "Sealed credentials"). Each request is read from the program's stream, its
// facts handed to the call's `refuse` (egress_call.hpp) before anything is forwarded, its
// `Authorization: Bearer <placeholder>` replaced by the sealed real token, and sent upstream;
// bodies and answers are streamed both ways (only a JSON body of at most 64 KiB is held, to show
// `refuse` what it asks). Keep-alive, Content-Length and chunked bodies are followed as RFC 9112
// says. One ApiExchange is recorded per request, however it ended.
//
// A request whose Host, or whose absolute-form target's authority, is not the tunnel's host is
// refused (no fronting another site behind a Google front end with the real token).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "egress_call.hpp"
#include "egress_tls_stream.hpp"

namespace kg::sandbox {

struct Http1RelayContext {
  std::string host;  // the validated host name the tunnel was admitted for
  int port = 443;
  // The current call's setup, read anew for every request.
  std::function<EgressCallSetup()> setup;
  // Called once when a request's head has been read, and once with its exchange when it ended
  // (so the proxy knows what is still in flight).
  std::function<void()> started;
  std::function<void(ApiExchange)> record;
  // Why there is no upstream (its TLS handshake failed: the certificate...); every request is
  // then answered 403 (gRPC: PERMISSION_DENIED) with this reason, which no client retries. Empty when upstream is connected.
  std::string upstream_failure;
};

// Serves requests until either side closes or ends keep-alive. `upstream` may be null only when
// upstream_failure is set. Throws TlsStreamError when a stream fails mid-request (the exchange
// is recorded first).
void relay_http1(TlsStream& client, TlsStream* upstream, const Http1RelayContext& context);

// What a request target sent inside a tunnel to `host`:`port` asks for: `path`, the origin-form
// path and query the classifier reads (RFC 9112 §3.2.1). An absolute URI (§3.2.2, "GET
// https://host/path") is admitted only when its authority is `host` (with or without `port`, no
// user info), and read as its path; any other target ("*", an authority) or authority is a
// `problem`, named as for a mismatched Host. Pure.
struct RelayedTarget {
  std::string path;
  std::optional<std::string> problem;  // set: refuse the request, saying why
};
RelayedTarget read_relayed_target(std::string_view target, const std::string& host, int port);

// The 403 body a refused REST request gets: {"error":{"code":403,"message":...,
// "status":"PERMISSION_DENIED"}}, as Google's APIs answer, so client libraries show the message.
std::string google_error_json(int code, const std::string& message, const std::string& status);

}  // namespace kg::sandbox
