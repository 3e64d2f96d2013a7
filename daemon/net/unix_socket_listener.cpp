#include "unix_socket_listener.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg::net {
namespace {

bool someone_listens(const std::string& path) {
  try {
    Poco::Net::StreamSocket probe;
    probe.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, path),
                  Poco::Timespan(0, 200'000));
    return true;
  } catch (const Poco::Exception&) {
    return false;
  }
}

}  // namespace

Poco::Net::ServerSocket listen_on_unix_socket(const std::string& path, mode_t mode, int backlog) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISSOCK(info.st_mode)) {
      throw std::runtime_error("Cannot listen on " + path + ": a file that is not a socket is there");
    }
    if (someone_listens(path)) {
      throw std::runtime_error("Cannot listen on " + path +
                               ": another process already serves it (is a daemon running?)");
    }
    ::unlink(path.c_str());
  }
  try {
    Poco::Net::ServerSocket socket;
    // Bind under a restrictive umask so the socket is never briefly open to others.
    const mode_t old_mask = ::umask(0177);
    try {
      socket.bind(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, path), false);
    } catch (...) {
      ::umask(old_mask);
      throw;
    }
    ::umask(old_mask);
    if (::chmod(path.c_str(), mode) != 0) {
      throw std::runtime_error("chmod " + path + ": " + std::strerror(errno));
    }
    socket.listen(backlog);
    return socket;
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen on " + path + ": " + e.displayText());
  }
}

}  // namespace kg::net
