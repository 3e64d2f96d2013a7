#include "socket_relay.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace kg::net {
namespace {

// Copies what is readable on `from` to `to`. False once `from` has nothing more to give or `to`
// takes nothing more.
bool pass_along(int from, int to) {
  char buffer[64 * 1024];
  ssize_t got;
  do {
    got = ::read(from, buffer, sizeof buffer);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return false;
  for (ssize_t sent = 0; sent < got;) {
    const ssize_t wrote =
        ::send(to, buffer + sent, static_cast<std::size_t>(got - sent), MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    sent += wrote;
  }
  return true;
}

}  // namespace

void relay_both_ways(int first, int second, const std::atomic<bool>& stopping,
                     std::chrono::milliseconds idle_timeout) {
  using Clock = std::chrono::steady_clock;
  bool first_open = true, second_open = true;
  auto last_byte = Clock::now();
  while ((first_open || second_open) && !stopping) {
    // A negative descriptor is skipped by poll: an ended side reports POLLHUP for ever, and
    // polling it with no events asked for would return at once, every time (a busy loop).
    pollfd entries[2] = {{first_open ? first : -1, POLLIN, 0},
                         {second_open ? second : -1, POLLIN, 0}};
    const int ready = ::poll(entries, 2, 500);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return;
    if (ready == 0) {
      if (Clock::now() - last_byte >= idle_timeout) return;
      continue;
    }
    last_byte = Clock::now();
    if ((entries[0].revents | entries[1].revents) & POLLNVAL) return;
    if (first_open && (entries[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
        !pass_along(first, second)) {
      first_open = false;
      ::shutdown(second, SHUT_WR);
    }
    if (second_open && (entries[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
        !pass_along(second, first)) {
      second_open = false;
      ::shutdown(first, SHUT_WR);
    }
  }
}

}  // namespace kg::net
