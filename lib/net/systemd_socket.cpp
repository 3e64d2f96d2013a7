#include "systemd_socket.hpp"

#include <Poco/Net/ServerSocketImpl.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace kg::net {
namespace {

constexpr int kFirstActivatedFd = 3;  // SD_LISTEN_FDS_START

// Poco keeps the constructors that adopt a descriptor protected; these two open them.
class AdoptedServerSocketImpl final : public Poco::Net::ServerSocketImpl {
 public:
  explicit AdoptedServerSocketImpl(int fd) { reset(fd); }
};

class AdoptedServerSocket final : public Poco::Net::ServerSocket {
 public:
  explicit AdoptedServerSocket(int fd) : ServerSocket(new AdoptedServerSocketImpl(fd), true) {}
};

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

[[noreturn]] void refuse(const std::string& why) {
  throw std::runtime_error("Socket activation: " + why +
                           "; make the socket unit's ListenStream= and the config's "
                           "[daemon] socket name the same path (docs/install.md)");
}

int socket_option(int fd, int option) {
  int value = 0;
  socklen_t length = sizeof(value);
  if (::getsockopt(fd, SOL_SOCKET, option, &value, &length) != 0) {
    refuse("descriptor " + std::to_string(fd) + " is not a socket: " + std::strerror(errno));
  }
  return value;
}

std::string bound_path(int fd) {
  sockaddr_un address{};
  socklen_t length = sizeof(address);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    refuse("cannot read the address of descriptor " + std::to_string(fd) + ": " +
           std::strerror(errno));
  }
  if (address.sun_family != AF_UNIX) refuse("the socket handed over is not a Unix socket");
  const auto path_bytes = length - offsetof(sockaddr_un, sun_path);
  return std::string(address.sun_path, ::strnlen(address.sun_path, path_bytes));
}

}  // namespace

std::optional<Poco::Net::ServerSocket> take_activated_unix_socket(const std::string& expected_path) {
  const std::string pid = env_or_empty("LISTEN_PID");
  const std::string count = env_or_empty("LISTEN_FDS");
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  // Variables meant for another process (a parent that was activated and did not clear them).
  if (pid.empty() || pid != std::to_string(::getpid())) return std::nullopt;
  if (count != "1") refuse("expected one socket, was handed " + (count.empty() ? "none" : count));
  const int fd = kFirstActivatedFd;
  if (socket_option(fd, SO_TYPE) != SOCK_STREAM) refuse("the socket handed over is not a stream socket");
  if (socket_option(fd, SO_ACCEPTCONN) == 0) refuse("the socket handed over is not listening");
  const std::string path = bound_path(fd);
  if (path != expected_path) {
    refuse("the socket handed over is " + path + " but the daemon is configured for " +
           expected_path);
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // sandboxes and helpers must not inherit it
  return AdoptedServerSocket(fd);
}

}  // namespace kg::net
