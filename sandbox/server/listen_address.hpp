// The --listen option of kode-gopher-sandbox: "fd:N" (the local sandbox: the daemon made the
// socket and passed it, so no socket file is visible inside), "unix:/path/to/sock" (the socket
// gets mode 0600) or "tcp:HOST:PORT" (the Kubernetes pod, tcp:0.0.0.0:8888).
// Used by main() once at start.
#pragma once

#include <Poco/Net/ServerSocket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace kg::sandbox {

struct ListenAddress {
  enum class Kind { unix_socket, tcp, inherited_fd } kind = Kind::tcp;
  int fd = -1;       // inherited_fd: a listening socket made by whoever started the server
  std::string path;  // unix_socket
  std::string host;  // tcp; an IPv6 host comes without its brackets
  std::uint16_t port = 0;
};

// Throws std::invalid_argument saying what form is expected.
ListenAddress parse_listen_address(std::string_view text);

// Throws std::runtime_error when the address cannot be bound.
Poco::Net::ServerSocket listen_on(const ListenAddress& address);

}  // namespace kg::sandbox
