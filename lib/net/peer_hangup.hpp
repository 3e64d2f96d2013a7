// Whether the peer of a connected socket has gone: it closed its end, or the connection broke.
// For servers whose client sends nothing after its request, so the only thing left to read is
// the end of the stream (the daemon API's and team mode's long calls). Any thread; never blocks.
#pragma once

namespace kg::net {

bool peer_hung_up(int socket_fd) noexcept;

}  // namespace kg::net
