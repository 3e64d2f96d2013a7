// A small pool of started sandboxes, so that a new session's first call does not wait for
// bubblewrap and the sandbox server to come up: each pooled sandbox has run one command. A
// background thread refills the pool after every take; it fills only once the base build cache
// is current (it never starts a prewarm itself, and sleeps until base_cache_current() says so).
//
// take() is called from call threads; stop() (or the destructor) ends the thread and stops the
// pooled sandboxes, and must run before the provider goes away.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "host_services.hpp"
#include "sandbox_provider.hpp"

namespace kg::session {

class WarmSandboxPool {
 public:
  // warm_up checks a fresh sandbox with one command (throws when it cannot); size 0 disables
  // the pool.
  // base_cache_current: whether the base build cache is current already (else the pool waits
  // for base_cache_current()).
  using WarmUp = std::function<void(sandbox::Sandbox&)>;
  WarmSandboxPool(sandbox::SandboxProvider& provider, bool base_cache_current, WarmUp warm_up,
                  std::size_t size, plugin::Logger& logger);
  ~WarmSandboxPool();
  WarmSandboxPool(const WarmSandboxPool&) = delete;
  WarmSandboxPool& operator=(const WarmSandboxPool&) = delete;

  // A ready sandbox, or nullptr when none is (the caller starts one itself). Never blocks on a
  // sandbox start.
  std::unique_ptr<sandbox::Sandbox> take();
  std::size_t ready() {
    std::lock_guard lock(mutex_);
    return ready_.size();
  }
  // Ends the refill thread and stops every pooled sandbox. Idempotent; never throws.
  void stop() noexcept;
  // The base cache became current (BaseCache::on_current): the pool may fill. Never throws.
  void base_cache_current() noexcept;

 private:
  void refill();

  sandbox::SandboxProvider& provider_;
  WarmUp warm_up_;
  std::size_t size_;
  plugin::Logger& logger_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<sandbox::Sandbox>> ready_;
  bool stopping_ = false;
  bool base_cache_current_ = false;
  std::thread thread_;
};

}  // namespace kg::session
