// What every HTTP/1.1 client of the daemon shares: the request options, the response, the one
// error type for a server that could not be reached, and the interface the sandbox client talks
// through, whether the sandbox listens on a Unix socket (local sandboxes) or on TCP behind the
// agent-sandbox router (Kubernetes).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "request_canceller.hpp"

namespace kg::net {

// The server could not be reached or the exchange broke off. connect_failed tells apart "nobody
// listens there" (start it, or report it gone) from a failure after the request was sent.
class HttpTransportError : public std::runtime_error {
 public:
  HttpTransportError(const std::string& message, bool connect_failed)
      : std::runtime_error(message), connect_failed_(connect_failed) {}
  bool connect_failed() const noexcept { return connect_failed_; }

 private:
  bool connect_failed_;
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  RequestCanceller* canceller = nullptr;  // lets another thread abort this request
};

// Called with each line of a streamed body, without its '\n' (empty lines are skipped).
using StreamLineHandler = std::function<void(std::string_view line)>;

struct HttpRequestOptions {
  std::string content_type = "application/json";
  std::chrono::milliseconds timeout{30'000};        // for connect, send and the response headers
  std::uint64_t max_response_bytes = 64ull << 20;  // a larger body is an HttpTransportError
  std::vector<std::pair<std::string, std::string>> headers;
  RequestCanceller* canceller = nullptr;  // lets another thread abort this request
  // When set, a 2xx answer of type application/x-ndjson is handed to it line by line as it
  // arrives (the response's body stays empty); max_response_bytes then bounds one line, and
  // timeout each wait for the next piece. Asking for such an answer (Accept) is the caller's
  // business. Exceptions it throws end the request and propagate.
  const StreamLineHandler* stream_lines = nullptr;
};

// One request per call, over a fresh connection; implementations are thread-safe.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Throws HttpTransportError; any HTTP status (including 4xx/5xx) is a response.
  virtual HttpResponse request(std::string_view method, std::string_view target,
                               std::string_view body, const HttpRequestOptions& options) const = 0;
  // The server, for messages: a socket path or host:port.
  virtual std::string describe() const = 0;
};

}  // namespace kg::net
