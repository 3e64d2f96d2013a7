#include "queued_reply.hpp"

namespace kg::team {

void QueuedReply::push(Item item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(std::move(item));
  }
  arrived_.notify_all();
}

void QueuedReply::end_unanswered() noexcept {
  try {
    push({Item::Kind::unanswered, {}});
  } catch (...) {
    // Out of memory: the waiting handler gives up on its own when its client goes.
  }
}

std::optional<QueuedReply::Item> QueuedReply::next(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (!arrived_.wait_for(lock, wait, [this] { return !items_.empty(); })) return std::nullopt;
  Item item = std::move(items_.front());
  items_.pop_front();
  return item;
}

}  // namespace kg::team
