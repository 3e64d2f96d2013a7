// Creates the listening Unix socket a Poco HTTPServer serves on: removes a stale socket file
// left by a dead process (but refuses to steal one that still answers), binds, sets the file
// mode, listens. Used by the daemon (mode 0600) and by kode-gopher-sandbox.
#pragma once

#include <Poco/Net/ServerSocket.h>

#include <string>
#include <sys/types.h>

namespace kg::net {

// Throws std::runtime_error naming the path when the socket cannot be made, or when another
// live process already serves it.
Poco::Net::ServerSocket listen_on_unix_socket(const std::string& path, mode_t mode, int backlog = 64);

}  // namespace kg::net
