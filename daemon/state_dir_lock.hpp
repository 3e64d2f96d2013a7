// An exclusive lock on <state_dir>/daemon.lock for the daemon's life, so two daemons never share
// sandboxes, sockets or the database. The file holds the owner's pid, for the message another
// daemon gets.
#pragma once

#include <string>

namespace kg {

class StateDirLock {
 public:
  // Throws std::runtime_error naming the other daemon's pid when the lock is taken.
  explicit StateDirLock(const std::string& state_dir);
  ~StateDirLock();
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kg
