// Built programs kept by content hash (the runtime computes the key from the files, go.mod,
// go.sum, toolchain and flags), so an identical resubmission skips the build. One cache per
// state directory, that is per daemon user: a trust boundary is never crossed. Sandboxes see the
// folder read-only; only the daemon writes it. Bounded in size: the least recently used
// programs are evicted first.
//
// Thread-safe: copies run in parallel, renames and eviction are serialized by a mutex; contains()
// only touches a file.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "host_services.hpp"

namespace kg::sandbox {

class BinaryCache {
 public:
  // max_bytes 0 turns the cache off (find misses, store does nothing).
  BinaryCache(std::string dir, std::uint64_t max_bytes, plugin::Logger& logger);

  const std::string& dir() const noexcept { return dir_; }
  // The file name of a key, when the key is well formed (64 lowercase hex digits).
  static bool valid_key(std::string_view key) noexcept;

  // True on a hit, and marks the entry as recently used.
  bool contains(std::string_view key);
  // Copies host_file in under key (atomically: copy, then rename), then evicts down to the bound.
  // Concurrent stores copy in parallel. Throws std::runtime_error naming the files when the copy
  // fails.
  void store(std::string_view key, const std::string& host_file);

 private:
  void evict_locked();

  std::string dir_;
  std::uint64_t max_bytes_;
  plugin::Logger& logger_;
  std::mutex mutex_;  // renames and eviction
  std::atomic<std::uint64_t> temporaries_{0};
};

}  // namespace kg::sandbox
