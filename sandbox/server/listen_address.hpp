// The --listen option of kode-gopher-sandbox: "unix:/path/to/sock" (the local sandbox; the
// socket gets mode 0600) or "tcp:HOST:PORT" (the Kubernetes pod, tcp:0.0.0.0:8888).
// Used by main() once at start.
#pragma once

#include <Poco/Net/ServerSocket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace kg::sandbox {

struct ListenAddress {
  enum class Kind { unix_socket, tcp } kind = Kind::tcp;
  std::string path;  // unix_socket
  std::string host;  // tcp; an IPv6 host comes without its brackets
  std::uint16_t port = 0;
};

// Throws std::invalid_argument saying what form is expected.
ListenAddress parse_listen_address(std::string_view text);

// Throws std::runtime_error when the address cannot be bound.
Poco::Net::ServerSocket listen_on(const ListenAddress& address);

}  // namespace kg::sandbox
