// The host-side module cache that `go mod tidy` fills for imports outside the curated lockfile
// (<state_dir>/gomodcache-extra): one private folder per owner (owner_folder.hpp), used as that
// owner's GOMODCACHE, and bounded in size over all owners by [cache] tidy_modules_max_bytes
// (docs/configuration.md). An entry is one module version of one owner (its downloads and its
// unpacked tree); past the bound the least recently used entries go first. A sandbox never sees
// the cache: link_for() hard-links the downloads of the module versions its tidied go.sum names
// into the sandbox's own folder, so what one user's tidy fetched is never another user's to list
// (docs/security.md).
//
// Thread-safe. Eviction never runs while a tidy is under way (the go command locks its cache
// against other go commands, not against our deletes): each tidy holds a Use from its start to
// its links, and the last Use to end evicts. Owned by Instance; ModuleTidier fills it, /v1/health
// reads usage().
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "host_services.hpp"

namespace kg::sandbox {

class TidyModuleCache {
 public:
  struct Usage {
    std::uint64_t bytes = 0;
    std::uint64_t limit_bytes = 0;
    std::uint64_t entries = 0;  // module versions, over all owners
  };

  // Makes root (mode 0700), removes what an older daemon's cache shared by all users left there,
  // and evicts down to max_bytes. Throws std::runtime_error when root cannot be made.
  TidyModuleCache(std::string root, std::uint64_t max_bytes, plugin::Logger& logger);
  TidyModuleCache(const TidyModuleCache&) = delete;
  TidyModuleCache& operator=(const TidyModuleCache&) = delete;

  // While one lives, nothing is evicted; the last one to end evicts down to the bound.
  class Use {
   public:
    explicit Use(TidyModuleCache& cache);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    TidyModuleCache& cache_;
  };

  // The owner's GOMODCACHE (SessionOwner::id; empty: the daemon's own user), made when missing.
  // Throws std::runtime_error.
  std::string owner_modcache(std::string_view owner);
  // Hard-links the downloads (.info, .mod, .zip, .ziphash) of every module version go_sum names
  // that the owner's cache holds into folder/cache/download/..., the layout of a file://
  // GOPROXY, and marks those versions used. Returns how many it linked. Throws
  // std::runtime_error when a link cannot be made.
  std::size_t link_for(std::string_view owner, std::string_view go_sum, const std::string& folder);

  Usage usage() const noexcept {
    return {bytes_.load(), max_bytes_, entries_.load()};
  }
  const std::string& root() const noexcept { return root_; }

 private:
  void end_use() noexcept;
  void scan_and_evict_locked() noexcept;  // with mutex_ held and no Use alive

  std::string root_;
  std::uint64_t max_bytes_;
  plugin::Logger& logger_;
  std::mutex mutex_;  // uses_, and eviction against new Uses
  std::uint32_t uses_ = 0;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> entries_{0};
};

}  // namespace kg::sandbox
