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
  // Bound in a fresh private (0700) folder beside `path`, given its mode, then renamed into
  // place: the socket is never open to others, and no process-wide umask is touched (other
  // threads start sandboxes and write caches meanwhile, and would inherit it).
  // (A short name, so the staged path is no longer than `path` for the usual socket names.)
  const auto slash = path.rfind('/');
  std::string staging = (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/.kXXXXXX";
  if (::mkdtemp(staging.data()) == nullptr) {
    throw std::runtime_error("Cannot listen on " + path + ": cannot make " + staging + ": " +
                             std::strerror(errno));
  }
  const std::string staged = staging + "/s";
  struct Cleanup {
    const std::string& dir;
    const std::string& file;
    ~Cleanup() {
      ::unlink(file.c_str());
      ::rmdir(dir.c_str());
    }
  } cleanup{staging, staged};
  try {
    Poco::Net::ServerSocket socket;
    socket.bind(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, staged), false);
    if (::chmod(staged.c_str(), mode) != 0) {
      throw std::runtime_error("chmod " + staged + ": " + std::strerror(errno));
    }
    if (::rename(staged.c_str(), path.c_str()) != 0) {
      throw std::runtime_error("rename " + staged + " to " + path + ": " + std::strerror(errno));
    }
    socket.listen(backlog);
    return socket;
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("Cannot listen on " + path + ": " + e.displayText());
  }
}

}  // namespace kg::net
