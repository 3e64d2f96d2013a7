// Socket activation: a daemon started by systemd for a socket unit (or by any launcher speaking
// the same protocol, sd_listen_fds(3): LISTEN_PID, LISTEN_FDS, descriptors from 3) serves on the
// socket it was handed instead of binding its own. The unit owns the socket file, so it stays
// when the daemon stops, and the next connection starts the daemon again (docs/install.md).
#pragma once

#include <Poco/Net/ServerSocket.h>

#include <optional>
#include <string>

namespace kg::net {

// The listening Unix socket handed to this process, when there is one; nullopt when this
// process was not socket-activated (no LISTEN_PID naming it). The LISTEN_* variables are
// removed either way, so no child inherits them. Throws std::runtime_error saying what is wrong
// and what to do when the process was activated with anything else than exactly one listening
// Unix stream socket bound to `expected_path` (the unit and the config disagree).
std::optional<Poco::Net::ServerSocket> take_activated_unix_socket(const std::string& expected_path);

}  // namespace kg::net
