// The streaming sibling of UnixHttpClient: sends one request and, when the server answers 2xx
// with a chunked `application/x-ndjson` body (the daemon's streamed execute), hands each line to
// a callback as soon as it arrives instead of waiting for the whole body. Any other answer
// (an error status, a plain JSON body) is collected and returned like UnixHttpClient does.
//
// Used by `kode-gopher serve` to turn the daemon's progress lines into MCP progress
// notifications. The caller's thread blocks in request() and runs the callback; another thread
// aborts the request in flight through options.canceller (RequestCanceller::cancel), which
// shuts the socket down so request() returns at once with an HttpTransportError.
//
// Thread-safe: the object holds only the socket path.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "unix_http_client.hpp"

namespace kg::net {

class UnixHttpStream {
 public:
  explicit UnixHttpStream(std::string socket_path) : socket_path_(std::move(socket_path)) {}

  // Sends `Accept: application/x-ndjson` with the request. options.timeout bounds connect, send,
  // the response headers and each wait for the next piece of the body (a silent server mid-body
  // is a timeout too); options.max_response_bytes bounds one line, or a collected body.
  //
  // Returns the status and headers; body is empty when the answer was streamed to on_line, and
  // holds the whole body otherwise. Throws HttpTransportError when nobody listens, the exchange
  // breaks off, a limit is passed, or the request was cancelled (cancelled() is then true on
  // the canceller). Exceptions thrown by on_line propagate unchanged and end the request.
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       const HttpRequestOptions& options, const StreamLineHandler& on_line) const;

  const std::string& socket_path() const noexcept { return socket_path_; }

 private:
  std::string socket_path_;
};

// True when a Content-Type names the NDJSON media type (parameters such as charset ignored).
bool is_ndjson_content_type(std::string_view content_type) noexcept;

}  // namespace kg::net
