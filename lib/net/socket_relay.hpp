// Relays bytes both ways between two connected stream sockets until both sides are done. Used by
// the sandbox's egress bridge (loopback TCP → the host's proxy socket) and by the host's egress
// proxy (an admitted connection → the upstream server). Runs on the calling thread.
#pragma once

#include <atomic>
#include <chrono>

namespace kg::net {

// Copies until both directions have ended (a half-close is passed on as shutdown(SHUT_WR)), the
// second side closes after the first, a socket fails, no byte has passed either way for
// `idle_timeout`, or `stopping` becomes true (checked twice a second). Closes neither socket.
// Never throws. A side that has ended is no longer polled, so a hung-up peer cannot make it spin.
void relay_both_ways(int first, int second, const std::atomic<bool>& stopping,
                     std::chrono::milliseconds idle_timeout = std::chrono::hours(24));

}  // namespace kg::net
