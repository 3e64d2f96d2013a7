// Bounds how many sessions are open at once ([daemon] max_sessions). A caller that finds every
// slot taken waits in a FIFO queue of at most [daemon] max_queued callers, for at most
// [daemon] queue_timeout_ms; a full queue or a wait that runs out is a QueueFullError whose
// message says how many run and wait and which keys to raise.
//
// Owned by SessionManager; every method is safe to call from any API thread. A waiter blocks
// the API thread that serves its request (the server sizes its thread pool for that).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>

namespace kg::session {

struct SlotQueueLimits {
  std::uint32_t max_slots = 16;                          // [daemon] max_sessions
  std::uint32_t max_waiting = 64;                        // [daemon] max_queued
  std::chrono::milliseconds timeout{120'000};            // [daemon] queue_timeout_ms
};

// How one caller waits: what it learns when it has to, and how it tells it gave up.
struct SlotWait {
  // Called once, before waiting, with how many hold a slot and how many wait ahead.
  std::function<void(std::size_t holding, std::size_t ahead)> on_queued;
  // Polled while waiting (a few times a second); true means the caller went away.
  std::function<bool()> caller_gone;
};

class SessionSlotQueue {
 public:
  explicit SessionSlotQueue(SlotQueueLimits limits);

  // Takes a slot for `waiter_id` (the session id the caller will get), waiting in line when
  // every slot is taken. Returns how long it waited, in ms. Throws QueueFullError (the queue
  // is full, or the wait ran out), CancelledError (cancel(waiter_id), or wait.caller_gone()),
  // ShuttingDownError (shut_down()). On any throw the caller holds no slot and is out of line.
  std::uint64_t acquire(const std::string& waiter_id, const SlotWait& wait);
  // Gives back a slot taken by acquire(); the first in line takes it.
  void release() noexcept;

  // Takes `waiter_id` out of the line (its acquire throws CancelledError). False when no such
  // caller waits.
  bool cancel(const std::string& waiter_id);
  // Refuses new callers and wakes every waiter with ShuttingDownError. Idempotent.
  void shut_down() noexcept;

  std::size_t holding();
  std::size_t waiting();

 private:
  struct Waiter {
    std::string id;
    bool cancelled = false;
  };

  std::string refusal(const std::string& why) const;  // needs mutex_

  const SlotQueueLimits limits_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::list<Waiter> line_;  // front: the next to take a slot
  std::size_t holding_ = 0;
  bool shut_down_ = false;
};

}  // namespace kg::session
