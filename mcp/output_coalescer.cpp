#include "output_coalescer.hpp"

namespace kg::mcp {

void OutputCoalescer::add(const ProgramOutput& output) {
  std::unique_lock lock(mutex_);
  if (finishing_) return;
  if (output.dropped_bytes > 0) {
    append_locked("\n[" + std::to_string(output.dropped_bytes) + " bytes of output not streamed (" +
                  (output.reason == "limit" ? std::string("over the stream's limit")
                                            : std::string("the reader fell behind")) +
                  "); the result holds the head and tail]\n");
  } else {
    append_locked(output.text);
    if (output.cut) append_locked(" ... [line cut; the result holds it]\n");
  }
  const auto now = std::chrono::steady_clock::now();
  if (waiting_.size() >= kMaxMessageBytes || now - last_sent_ >= kInterval) {
    send_locked(lock);
    return;
  }
  if (!timer_.joinable()) timer_ = std::thread([this] { timer_loop(); });
  wake_.notify_one();
}

void OutputCoalescer::append_locked(std::string_view text) {
  if (stopped_streaming_) {
    not_streamed_ += text.size();
    return;
  }
  if (sent_bytes_ + text.size() <= kMaxCallBytes) {
    waiting_ += text;
    sent_bytes_ += text.size();
    return;
  }
  const std::size_t room = kMaxCallBytes - sent_bytes_;
  waiting_ += text.substr(0, room);
  not_streamed_ += text.size() - room;
  sent_bytes_ = kMaxCallBytes;
  stopped_streaming_ = true;
  waiting_ += "\n[output streaming stopped after " + std::to_string(kMaxCallBytes) +
              " bytes for this call; the program goes on, and the result holds the output's "
              "head and tail]\n";
}

void OutputCoalescer::send_locked(std::unique_lock<std::mutex>& lock) {
  // One message at a time, in order: a second sender waits for the first.
  wake_.wait(lock, [&] { return !sending_; });
  if (waiting_.empty()) return;
  std::string message;
  message.swap(waiting_);
  sending_ = true;
  last_sent_ = std::chrono::steady_clock::now();
  lock.unlock();
  try {
    send_(message);
  } catch (...) {
    // The client is gone; the call goes on.
  }
  lock.lock();
  sending_ = false;
  wake_.notify_all();
}

void OutputCoalescer::timer_loop() {
  std::unique_lock lock(mutex_);
  while (!finishing_) {
    if (waiting_.empty() || sending_) {
      wake_.wait(lock);
      continue;
    }
    const auto due = last_sent_ + kInterval;
    if (std::chrono::steady_clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    send_locked(lock);
  }
}

void OutputCoalescer::finish() noexcept {
  try {
    std::unique_lock lock(mutex_);
    if (finishing_) return;
    finishing_ = true;
    wake_.notify_all();
    lock.unlock();
    if (timer_.joinable()) timer_.join();
    lock.lock();
    send_locked(lock);
  } catch (...) {
  }
}

}  // namespace kg::mcp
