#include "session_slot_queue.hpp"

#include <algorithm>

#include "session_errors.hpp"

namespace kg::session {
namespace {

using Clock = std::chrono::steady_clock;

// How often a waiter asks whether its caller is still there.
constexpr std::chrono::milliseconds kCallerProbeInterval{200};

std::uint64_t ms_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

SessionSlotQueue::SessionSlotQueue(SlotQueueLimits limits) : limits_(limits) {}

std::string SessionSlotQueue::refusal(const std::string& why) const {
  return why + ": " + std::to_string(holding_) + " of " + std::to_string(limits_.max_slots) +
         " sessions are open ([daemon] max_sessions) and " +
         plural(line_.size(), "caller waits", "callers wait") + " for one (at most " +
         std::to_string(limits_.max_waiting) + ", [daemon] max_queued)";
}

std::uint64_t SessionSlotQueue::acquire(const std::string& waiter_id, const SlotWait& wait) {
  const auto started = Clock::now();
  std::unique_lock lock(mutex_);
  if (shut_down_) throw ShuttingDownError("The daemon is shutting down; it opens no new sessions");
  if (line_.empty() && holding_ < limits_.max_slots) {
    ++holding_;
    return 0;
  }
  if (line_.size() >= limits_.max_waiting) {
    throw QueueFullError(refusal("No session slot is free and the wait queue is full") +
                         "; raise [daemon] max_sessions or max_queued, or try again later");
  }
  const auto me = line_.insert(line_.end(), Waiter{waiter_id});
  const auto leave = [&] {
    line_.erase(me);
    changed_.notify_all();  // the next in line may be first now
  };
  if (wait.on_queued) {
    const std::size_t holding = holding_, ahead = line_.size() - 1;
    lock.unlock();
    wait.on_queued(holding, ahead);
    lock.lock();
  }
  const auto deadline = started + limits_.timeout;
  for (;;) {
    if (shut_down_) {
      leave();
      throw ShuttingDownError("The daemon is shutting down; the call gave up its place in the "
                              "queue for a session slot");
    }
    if (me->cancelled) {
      leave();
      throw CancelledError("The call was cancelled while it waited for a session slot");
    }
    if (me == line_.begin() && holding_ < limits_.max_slots) {
      ++holding_;
      leave();
      return ms_since(started);
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      const std::string why = "No session slot became free within " +
                              std::to_string(limits_.timeout.count()) +
                              " ms ([daemon] queue_timeout_ms)";
      line_.erase(me);
      const std::string message = refusal(why);
      changed_.notify_all();
      throw QueueFullError(message +
                           "; raise [daemon] max_sessions or queue_timeout_ms, or try again later");
    }
    if (wait.caller_gone) {
      lock.unlock();
      const bool gone = wait.caller_gone();
      lock.lock();
      if (gone) {
        leave();
        throw CancelledError("The caller hung up while it waited for a session slot");
      }
    }
    changed_.wait_until(lock, std::min(deadline, Clock::now() + kCallerProbeInterval));
  }
}

void SessionSlotQueue::release() noexcept {
  {
    std::lock_guard lock(mutex_);
    if (holding_ > 0) --holding_;
  }
  changed_.notify_all();
}

bool SessionSlotQueue::cancel(const std::string& waiter_id) {
  std::lock_guard lock(mutex_);
  const auto it = std::find_if(line_.begin(), line_.end(),
                               [&](const Waiter& w) { return w.id == waiter_id && !w.cancelled; });
  if (it == line_.end()) return false;
  it->cancelled = true;
  changed_.notify_all();
  return true;
}

void SessionSlotQueue::shut_down() noexcept {
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
  }
  changed_.notify_all();
}

std::size_t SessionSlotQueue::holding() {
  std::lock_guard lock(mutex_);
  return holding_;
}

std::size_t SessionSlotQueue::waiting() {
  std::lock_guard lock(mutex_);
  return line_.size();
}

}  // namespace kg::session
