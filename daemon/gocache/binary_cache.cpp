#include "binary_cache.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace kg::sandbox {
namespace fs = std::filesystem;

BinaryCache::BinaryCache(std::string dir, std::uint64_t max_bytes, plugin::Logger& logger)
    : dir_(std::move(dir)), max_bytes_(max_bytes), logger_(logger) {
  fs::create_directories(dir_);
  ::chmod(dir_.c_str(), 0700);  // never bound into a sandbox; only the daemon reads it
  std::error_code ec;
  std::uint64_t shared = 0;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (is_owner_folder_name(name) && entry.is_directory(ec)) {
      remove_dead_copies(entry.path().string());
    } else if (valid_key(name)) {
      // An older daemon kept every owner's programs side by side here; no owner's lookup
      // reaches them any more.
      fs::remove(entry.path(), ec);
      ++shared;
    }
  }
  remove_dead_copies(dir_);
  if (shared > 0) {
    logger_.log(plugin::LogLevel::info, "Binary cache: removed " + std::to_string(shared) +
                                            " program(s) of the former cache shared by all users");
  }
}

void BinaryCache::remove_dead_copies(const std::string& folder) {
  // A live daemon sharing the folder keeps its own.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const auto tmp = name.find(".tmp.");
    if (tmp == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + tmp + 5, nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) fs::remove(entry.path(), ec);
  }
}

std::string BinaryCache::entry_name(std::string_view owner, std::string_view key) {
  return owner_folder_name(owner) + "/" + std::string(key);
}

bool BinaryCache::valid_key(std::string_view key) noexcept {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool BinaryCache::wait_for_pending(const std::string& name) {
  std::unique_lock lock(queue_mutex_);
  return queue_changed_.wait_for(lock, std::chrono::seconds(60),
                                 [&] { return pending_keys_.find(name) == pending_keys_.end(); });
}

bool BinaryCache::contains(std::string_view owner, std::string_view key) {
  if (max_bytes_ == 0 || !valid_key(key)) return false;
  const std::string name = entry_name(owner, key);
  wait_for_pending(name);
  const auto path = fs::path(dir_) / name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // recently used
  return true;
}

bool BinaryCache::link_into(std::string_view owner, std::string_view key, const std::string& folder) {
  if (!contains(owner, key)) return false;
  // Under the lock: eviction cannot take the entry between the check and the link.
  std::lock_guard lock(mutex_);
  const auto path = fs::path(dir_) / entry_name(owner, key);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  link_entry(path, fs::path(folder) / key);
  return true;
}

void BinaryCache::store(std::string_view owner, std::string_view key, const std::string& host_file,
                        const timespec* unchanged_since) {
  if (max_bytes_ == 0) return;
  if (!valid_key(key)) throw std::runtime_error("invalid binary cache key '" + std::string(key) + "'");
  const fs::path folder = ensure_owner_folder(dir_, owner);
  const auto target = folder / key;
  // A name of its own per store, so concurrent stores copy without holding the lock.
  const auto temporary =
      folder / (std::string(key) + ".tmp." + std::to_string(::getpid()) + "." +
                std::to_string(++temporaries_));
  std::error_code ec;
  fs::copy_file(host_file, temporary, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error("Cannot copy " + host_file + " into the binary cache: " + ec.message());
  }
  if (unchanged_since != nullptr) {
    // Any write, truncate or chmod of the source moves its ctime: such a copy is not the build.
    struct stat now {};
    if (::stat(host_file.c_str(), &now) != 0 || now.st_ctim.tv_sec != unchanged_since->tv_sec ||
        now.st_ctim.tv_nsec != unchanged_since->tv_nsec) {
      fs::remove(temporary, ec);
      throw std::runtime_error("the built program changed before it was copied; not cached (key " +
                               std::string(key) + ")");
    }
  }
  std::lock_guard lock(mutex_);
  fs::permissions(temporary, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                 fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec,
                  ec);
  fs::rename(temporary, target, ec);
  if (ec) throw std::runtime_error("Cannot add " + target.string() + ": " + ec.message());
  evict_locked();
}

BinaryCache::~BinaryCache() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_changed_.notify_all();
  if (store_thread_.joinable()) store_thread_.join();  // after the queue is drained
}

void BinaryCache::store_logged(const std::string& owner, const std::string& key,
                               const OwnedFd& file, const timespec& unchanged_since) noexcept {
  try {
    store(owner, key, "/proc/self/fd/" + std::to_string(file.get()), &unchanged_since);
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::warn, std::string("Binary cache: ") + e.what());
  }
}

void BinaryCache::store_later(std::string owner, std::string key, OwnedFd file) noexcept {
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) {
    logger_.log(plugin::LogLevel::warn, "Binary cache: cannot stat the built program of " + key);
    return;
  }
  try {
    std::unique_lock lock(queue_mutex_);
    if (queue_.size() < kMaxPendingStores && !stopping_) {
      if (!store_thread_.joinable()) store_thread_ = std::thread([this] { run_store_queue(); });
      queue_.push_back({owner, key, std::move(file), info.st_ctim});
      try {
        pending_keys_.insert(entry_name(owner, key));
      } catch (...) {
        file = std::move(queue_.back().file);
        queue_.pop_back();
        throw;
      }
      lock.unlock();
      queue_changed_.notify_all();  // the store thread, among contains() callers waiting
      return;
    }
  } catch (const std::exception& e) {  // no thread or memory to spare: copy here
    logger_.log(plugin::LogLevel::debug, std::string("Binary cache: copying now: ") + e.what());
  }
  store_logged(owner, key, file, info.st_ctim);
}

void BinaryCache::run_store_queue() {
  std::unique_lock lock(queue_mutex_);
  for (;;) {
    queue_changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to copy
    PendingStore next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    store_logged(next.owner, next.key, next.file, next.unchanged_since);
    const std::string name = entry_name(next.owner, next.key);
    lock.lock();
    if (auto pending = pending_keys_.find(name); pending != pending_keys_.end()) pending_keys_.erase(pending);
    queue_changed_.notify_all();  // a contains() may wait for this key
  }
}

void BinaryCache::evict_locked() {
  struct Entry {
    fs::path path;
    std::uint64_t size;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& folder : fs::directory_iterator(dir_, ec)) {
    if (!is_owner_folder_name(folder.path().filename().string())) continue;
    for (const auto& entry : fs::directory_iterator(folder.path(), ec)) {
      // Only entries: another store's copy in progress is not one yet.
      if (!valid_key(entry.path().filename().string()) || !entry.is_regular_file(ec)) continue;
      const auto size = entry.file_size(ec);
      entries.push_back({entry.path(), size, entry.last_write_time(ec)});
      total += size;
    }
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  const std::uint64_t goal = max_bytes_ / 10 * 9;  // leave room so every store does not evict
  for (const auto& entry : entries) {
    if (total <= goal) break;
    fs::remove(entry.path, ec);
    total -= entry.size;
    logger_.log(plugin::LogLevel::debug, "Binary cache: evicted " + entry.path.parent_path().filename().string() +
                                             "/" + entry.path.filename().string());
  }
}

}  // namespace kg::sandbox
