#include "state_dir_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kg {

StateDirLock::StateDirLock(const std::string& state_dir) {
  const std::string path = state_dir + "/daemon.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("Cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    [[maybe_unused]] auto got = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    throw std::runtime_error("Another kode-gopherd (pid " + std::string(pid) +
                             ") is using the state directory " + state_dir +
                             "; stop it first, or give this one another [daemon] state_dir");
  }
  const std::string text = std::to_string(::getpid());
  [[maybe_unused]] auto rc = ::ftruncate(fd_, 0);
  [[maybe_unused]] auto wrote = ::pwrite(fd_, text.data(), text.size(), 0);
}

StateDirLock::~StateDirLock() { ::close(fd_); }

}  // namespace kg
