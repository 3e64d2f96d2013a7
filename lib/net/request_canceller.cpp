#include "request_canceller.hpp"

#include <sys/socket.h>

namespace kg::net {

void RequestCanceller::cancel() noexcept {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

bool RequestCanceller::cancelled() const noexcept {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void RequestCanceller::reset() noexcept {
  std::lock_guard lock(mutex_);
  cancelled_ = false;
}

bool RequestCanceller::attach(int socket_fd) noexcept {
  std::lock_guard lock(mutex_);
  if (cancelled_) return false;
  fd_ = socket_fd;
  return true;
}

void RequestCanceller::detach() noexcept {
  std::lock_guard lock(mutex_);
  fd_ = -1;
}

}  // namespace kg::net
