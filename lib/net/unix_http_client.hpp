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

#include "http_client.hpp"

namespace kg::net {

class UnixHttpClient final : public HttpClient {
 public:
  explicit UnixHttpClient(std::string socket_path) : socket_path_(std::move(socket_path)) {}

  // Throws HttpTransportError; any HTTP status (including 4xx/5xx) is a response.
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       const HttpRequestOptions& options) const override;
  std::string describe() const override { return socket_path_; }
  HttpResponse get(std::string_view target, const HttpRequestOptions& options = {}) const {
    return request("GET", target, {}, options);
  }

  const std::string& socket_path() const noexcept { return socket_path_; }

 private:
  std::string socket_path_;
};

}  // namespace kg::net
