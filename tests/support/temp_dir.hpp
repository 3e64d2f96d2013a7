// A temporary directory for one test, removed with everything in it when the test ends.
// Shared by the unit suites (header-only; include it by relative path).
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace kg::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "kg-test-") {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            (prefix + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" +
             std::to_string(++counter));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace kg::test
