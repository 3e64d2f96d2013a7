#include "peer_hangup.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace kg::net {

bool peer_hung_up(int socket_fd) noexcept {
  char byte;
  const ssize_t got = ::recv(socket_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got == 0) return true;
  return got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace kg::net
