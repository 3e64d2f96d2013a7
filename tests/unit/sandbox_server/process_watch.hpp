// Waits for a process to be gone (or a zombie nobody reaped yet), for the tests that check that
// a command's children were killed. Tests only.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace kg::sandbox::testing {

inline bool process_is_gone(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat_file, line)) return true;
  const auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < line.size() &&
         (line[close_paren + 2] == 'Z' || line[close_paren + 2] == 'X');
}

// True once the process is gone; false if it is still alive after `patience` (SIGKILL takes
// effect asynchronously, so a short wait is needed even when everything works).
inline bool wait_until_gone(pid_t pid, std::chrono::seconds patience = std::chrono::seconds(10)) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (!process_is_gone(pid)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The pid a command wrote into `file` (0 if the file is missing or empty).
inline pid_t read_pid_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

}  // namespace kg::sandbox::testing
