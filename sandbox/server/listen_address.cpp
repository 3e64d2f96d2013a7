#include "listen_address.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/SocketImpl.h>
#include <fcntl.h>
#include <sys/socket.h>

#include <charconv>
#include <stdexcept>

#include "unix_socket_listener.hpp"

namespace kg::sandbox {
namespace {

std::invalid_argument bad_address(std::string_view text, const std::string& why) {
  return std::invalid_argument("Invalid listen address \"" + std::string(text) + "\": " + why +
                               " (use unix:/path/to/sock, tcp:HOST:PORT or fd:N)");
}

// Poco 1.11 builds a socket from a descriptor only in its subclasses.
class InheritedSocketImpl final : public Poco::Net::SocketImpl {
 public:
  explicit InheritedSocketImpl(poco_socket_t fd) : Poco::Net::SocketImpl(fd) {}
};

class InheritedServerSocket final : public Poco::Net::ServerSocket {
 public:
  explicit InheritedServerSocket(int fd) : Poco::Net::ServerSocket(new InheritedSocketImpl(fd), true) {}
};

Poco::Net::ServerSocket adopt_listening_socket(int fd) {
  int listening = 0;
  socklen_t size = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || !listening) {
    throw std::runtime_error("Cannot serve on descriptor " + std::to_string(fd) +
                             ": it is not a listening socket");
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // never inherited by a command
  return InheritedServerSocket(fd);
}

}  // namespace

ListenAddress parse_listen_address(std::string_view text) {
  ListenAddress address;
  if (text.starts_with("fd:")) {
    const std::string_view number = text.substr(3);
    int value = -1;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || value < 3) {
      throw bad_address(text, "the descriptor must be a number of 3 or more");
    }
    address.kind = ListenAddress::Kind::inherited_fd;
    address.fd = value;
    return address;
  }
  if (text.starts_with("unix:")) {
    address.kind = ListenAddress::Kind::unix_socket;
    address.path = std::string(text.substr(5));
    if (address.path.empty()) throw bad_address(text, "the socket path is empty");
    return address;
  }
  if (!text.starts_with("tcp:")) throw bad_address(text, "unknown kind");
  const std::string_view rest = text.substr(4);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) throw bad_address(text, "no HOST:PORT");
  std::string_view host = rest.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string_view port = rest.substr(colon + 1);
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (error != std::errc() || end != port.data() + port.size() || value > 65535) {
    throw bad_address(text, "the port must be a number from 0 to 65535");
  }
  address.kind = ListenAddress::Kind::tcp;
  address.host = std::string(host);
  address.port = static_cast<std::uint16_t>(value);
  return address;
}

Poco::Net::ServerSocket listen_on(const ListenAddress& address) {
  if (address.kind == ListenAddress::Kind::inherited_fd) return adopt_listening_socket(address.fd);
  if (address.kind == ListenAddress::Kind::unix_socket) {
    return kg::net::listen_on_unix_socket(address.path, 0600);
  }
  try {
    return Poco::Net::ServerSocket(Poco::Net::SocketAddress(address.host, address.port), 64);
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen on " + address.host + ":" +
                             std::to_string(address.port) + ": " + e.displayText());
  }
}

}  // namespace kg::sandbox
