// HTTP/2 between a program and a Google API host, inside TLS the egress proxy terminated (the
// program and the upstream both chose ALPN h2; gRPC clients always do), with nghttp2 on both
// sides (docs/egress.md, "Sealed credentials"): the proxy is an HTTP/2 server to the program and
// an HTTP/2 client to the upstream, and maps each program stream to one upstream stream. Per
// stream, like HTTP/1.1 (egress_http1_relay.hpp): its :authority (and any Host) must be the
// tunnel's host; its facts go to the call's `refuse` before anything is forwarded (a JSON body of
// at most 64 KiB announced by content-length is held until complete, to show it); a refusal is a
// Google-style 403, or for gRPC a trailers-only answer with grpc-status 7 and grpc-message;
// `authorization: Bearer <placeholder>` becomes the real token; bodies stream both ways under
// HTTP/2 flow control (a window is given back only once the other side took the bytes, so a slow
// peer slows the sender instead of filling the proxy's memory); trailers are passed on, and
// grpc-status is read from them. One ApiExchange is recorded per stream when it ends.
//
// One connection is served on the calling thread, both sides from one poll loop.
#pragma once

#include "egress_http1_relay.hpp"
#include "egress_tls_stream.hpp"

namespace kg::sandbox {

// Serves the program's HTTP/2 connection until it or the upstream ends it, the proxy stops, or
// nothing moves for the idle timeout. `upstream` may be null only when context.upstream_failure
// is set (every stream is then answered 403, gRPC PERMISSION_DENIED, with the reason). Throws TlsStreamError when a stream of bytes fails.
void relay_http2(TlsStream& client, TlsStream* upstream, const Http1RelayContext& context,
                 const TlsWaits& waits);

}  // namespace kg::sandbox
