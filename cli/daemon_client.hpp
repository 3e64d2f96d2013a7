// The daemon API (docs/daemon-api.md) as the CLI uses it: JSON requests over the daemon's Unix
// socket, non-2xx answers turned into DaemonApiError with the body's error.message.
// Holds only the socket path; main thread (thread-safe like kg::net::UnixHttpClient).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "cli_errors.hpp"
#include "unix_http_client.hpp"

namespace kg::cli {

class DaemonClient {
 public:
  explicit DaemonClient(std::string socket_path) : http_(std::move(socket_path)) {}

  // Each throws kg::net::HttpTransportError (nobody listens, or the exchange broke off),
  // DaemonApiError (a non-2xx answer) or std::runtime_error (a 2xx body that is not JSON).
  rapidjson::Document get(std::string_view target,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  rapidjson::Document post(std::string_view target, std::string_view json_body,
                           std::chrono::milliseconds timeout) const;

  const std::string& socket_path() const noexcept { return http_.socket_path(); }

 private:
  rapidjson::Document answer(const kg::net::HttpResponse& response, std::string_view method,
                             std::string_view target) const;

  kg::net::UnixHttpClient http_;
};

// The error a non-2xx answer means: {"error":{"code","message"}} gives its code and message;
// any other body gives "daemon answered HTTP <status>: <first 200 bytes of the body>".
DaemonApiError daemon_error_from_answer(int http_status, std::string_view body);

}  // namespace kg::cli
