// Built programs kept by content hash (the runtime computes the key from the files, go.mod,
// go.sum, toolchain and flags), so an identical resubmission skips the build. One cache per
// state directory, split by owner (the session's signed-in user; the daemon's own user for the
// Unix-socket API): each owner's programs live in a private folder of their own
// (owner_folder.hpp), and a sandbox never sees the cache, only hard links to its own owner's
// hits that link_into() puts in the sandbox's folder (docs/security.md). Only the daemon writes
// it. Bounded in size over all owners: the least recently used programs are evicted first.
//
// Thread-safe: copies run in parallel, renames and eviction are serialized by a mutex; contains()
// only touches a file. store_later() hands a copy to the cache's own thread, which the destructor
// drains and joins.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "host_services.hpp"
#include "owner_folder.hpp"
#include "owned_fd.hpp"

namespace kg::sandbox {

class BinaryCache {
 public:
  // max_bytes 0 turns the cache off (find misses, store does nothing).
  BinaryCache(std::string dir, std::uint64_t max_bytes, plugin::Logger& logger);
  ~BinaryCache();  // finishes the copies store_later() queued
  BinaryCache(const BinaryCache&) = delete;
  BinaryCache& operator=(const BinaryCache&) = delete;

  const std::string& dir() const noexcept { return dir_; }
  // The file name of a key, when the key is well formed (64 lowercase hex digits).
  static bool valid_key(std::string_view key) noexcept;

  // `owner` below is SessionOwner::id (empty: the daemon's own user); an owner sees only the
  // programs stored under its own id.

  // True on a hit, and marks the entry as recently used. A key whose copy store_later() has
  // queued is waited for (a copy takes milliseconds, the build it saves seconds).
  bool contains(std::string_view owner, std::string_view key);
  // On a hit, makes folder/key the same file as the owner's entry (link_entry: a hard link, which
  // eviction cannot take away from the sandbox using it) and returns true. Throws
  // std::runtime_error when the link cannot be made.
  bool link_into(std::string_view owner, std::string_view key, const std::string& folder);
  // Copies host_file in under key (atomically: copy, then rename), then evicts down to the bound.
  // Concurrent stores copy in parallel. With unchanged_since, the copy is dropped unless the
  // file's ctime still equals it afterwards. Throws std::runtime_error naming the files when the
  // copy fails or was dropped.
  void store(std::string_view owner, std::string_view key, const std::string& host_file,
             const timespec* unchanged_since = nullptr);
  // Copies the open file in under key on the cache's own thread, after the caller has moved on;
  // the caller makes sure nobody can change the file any more, and a change anyway (its ctime
  // moved since this call) drops the copy. With kMaxPendingStores waiting
  // already, copies on the caller's thread instead. Never throws: a failure is logged.
  void store_later(std::string owner, std::string key, OwnedFd file) noexcept;

  static constexpr std::size_t kMaxPendingStores = 8;

 private:
  // "<owner folder>/<key>": the entry's path under dir_, and its name while a copy is pending.
  static std::string entry_name(std::string_view owner, std::string_view key);
  // Removes copies a dead daemon left in a folder (<key>.tmp.<pid>.<n>, that pid gone).
  static void remove_dead_copies(const std::string& folder);
  bool wait_for_pending(const std::string& name);
  void evict_locked();
  void store_logged(const std::string& owner, const std::string& key, const OwnedFd& file,
                    const timespec& unchanged_since) noexcept;
  void run_store_queue();

  std::string dir_;
  std::uint64_t max_bytes_;
  plugin::Logger& logger_;
  std::mutex mutex_;  // renames and eviction
  std::atomic<std::uint64_t> temporaries_{0};

  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  struct PendingStore {
    std::string owner;
    std::string key;
    OwnedFd file;
    timespec unchanged_since;
  };
  std::deque<PendingStore> queue_;
  std::multiset<std::string, std::less<>> pending_keys_;  // entry names queued or being copied
  bool stopping_ = false;
  std::thread store_thread_;  // started on the first store_later()
};

}  // namespace kg::sandbox
