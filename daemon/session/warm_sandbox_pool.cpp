#include "warm_sandbox_pool.hpp"

#include <chrono>

#include "error_chain.hpp"

namespace kg::session {

WarmSandboxPool::WarmSandboxPool(sandbox::SandboxProvider& provider, bool base_cache_current,
                                 WarmUp warm_up, std::size_t size, plugin::Logger& logger)
    : provider_(provider),
      warm_up_(std::move(warm_up)),
      size_(size),
      logger_(logger),
      base_cache_current_(base_cache_current) {
  if (size_ > 0) thread_ = std::thread([this] { refill(); });
}

WarmSandboxPool::~WarmSandboxPool() { stop(); }

std::unique_ptr<sandbox::Sandbox> WarmSandboxPool::take() {
  std::unique_ptr<sandbox::Sandbox> sandbox;
  {
    std::lock_guard lock(mutex_);
    while (!ready_.empty() && !sandbox) {
      sandbox = std::move(ready_.front());
      ready_.pop_front();
      if (!sandbox->alive()) sandbox.reset();  // died while it waited: not worth handing out
    }
  }
  wake_.notify_one();
  return sandbox;
}

void WarmSandboxPool::stop() noexcept {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::deque<std::unique_ptr<sandbox::Sandbox>> pooled;
  {
    std::lock_guard lock(mutex_);
    pooled.swap(ready_);
  }
  pooled.clear();  // stops them
}

void WarmSandboxPool::base_cache_current() noexcept {
  {
    std::lock_guard lock(mutex_);
    base_cache_current_ = true;
  }
  wake_.notify_all();
}

void WarmSandboxPool::refill() {
  using namespace std::chrono_literals;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // Sleeps (no CPU, the lock released) until a take leaves room and the base cache is current.
    wake_.wait(lock, [this] { return stopping_ || (ready_.size() < size_ && base_cache_current_); });
    if (stopping_) break;
    lock.unlock();
    std::unique_ptr<sandbox::Sandbox> sandbox;
    long long ready_ms = 0;
    try {
      const auto started = std::chrono::steady_clock::now();
      sandbox = provider_.open({});
      warm_up_(*sandbox);
      ready_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - started).count();
    } catch (const std::exception& e) {
      sandbox.reset();
      logger_.log(plugin::LogLevel::warn, "Warm pool: cannot prepare a sandbox (calls start their "
                                          "own): " + describe_error_chain(e));
      lock.lock();
      wake_.wait_for(lock, 30s, [this] { return stopping_; });  // no tight retry loop
      continue;
    }
    lock.lock();
    if (stopping_) break;  // the sandbox stops as it goes out of scope, after the unlock below
    const std::string id = sandbox->id();
    ready_.push_back(std::move(sandbox));
    // Logged once it can be taken (tests wait for this line).
    logger_.log(plugin::LogLevel::debug, "Warm pool: sandbox " + id + " ready in " +
                                             std::to_string(ready_ms) + " ms");
  }
}

}  // namespace kg::session
