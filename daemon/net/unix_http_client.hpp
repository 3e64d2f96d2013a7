// A blocking HTTP/1.1 client for one server on a Unix socket: the CLI talks to the daemon and
// the daemon talks to each sandbox with it. One connection per request (Unix sockets connect in
// microseconds, and a fresh connection never inherits a half-read response).
//
// Thread-safe: the object holds only the socket path.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

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

struct HttpRequestOptions {
  std::string content_type = "application/json";
  std::chrono::milliseconds timeout{30'000};        // for connect, send and the response headers
  std::uint64_t max_response_bytes = 64ull << 20;  // a larger body is an HttpTransportError
  std::vector<std::pair<std::string, std::string>> headers;
  RequestCanceller* canceller = nullptr;  // lets another thread abort this request
};

class UnixHttpClient {
 public:
  explicit UnixHttpClient(std::string socket_path) : socket_path_(std::move(socket_path)) {}

  // Throws HttpTransportError; any HTTP status (including 4xx/5xx) is a response.
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       const HttpRequestOptions& options) const;
  HttpResponse get(std::string_view target, const HttpRequestOptions& options = {}) const {
    return request("GET", target, {}, options);
  }

  const std::string& socket_path() const noexcept { return socket_path_; }

 private:
  std::string socket_path_;
};

}  // namespace kg::net
