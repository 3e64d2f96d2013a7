// Turns a call's program output into few, bounded progress messages (docs/mcp.md, "Output while
// it runs"): pieces that arrive within kInterval of the last message are gathered into the next
// one (at most kMaxMessageBytes of text each), a message goes out at once when none went out for
// kInterval, and a timer sends what waits once kInterval has passed, so a line printed before a
// long sleep still arrives during the sleep. At most kMaxCallBytes of text are sent per call;
// the message that reaches that limit says the streaming stopped and that the result holds the
// output's head and tail. Pieces the daemon could not stream are named in the text too.
//
// add() is called on the tool-call worker thread; `send` runs on it or on the coalescer's own
// timer thread (never both at once); finish() (also the destructor) sends what waits and joins
// the timer.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "program_output.hpp"

namespace kg::mcp {

class OutputCoalescer {
 public:
  static constexpr std::chrono::milliseconds kInterval{250};
  static constexpr std::size_t kMaxMessageBytes = 4 * 1024;
  static constexpr std::size_t kMaxCallBytes = 64 * 1024;

  using Send = std::function<void(const std::string& message)>;
  explicit OutputCoalescer(Send send) : send_(std::move(send)) {}
  ~OutputCoalescer() { finish(); }
  OutputCoalescer(const OutputCoalescer&) = delete;
  OutputCoalescer& operator=(const OutputCoalescer&) = delete;

  void add(const ProgramOutput& output);
  void finish() noexcept;

 private:
  void append_locked(std::string_view text);
  void send_locked(std::unique_lock<std::mutex>& lock);
  void timer_loop();

  Send send_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string waiting_;
  std::size_t sent_bytes_ = 0;  // text bytes sent or waiting, toward kMaxCallBytes
  std::uint64_t not_streamed_ = 0;  // bytes past kMaxCallBytes
  bool stopped_streaming_ = false;
  bool sending_ = false;
  std::chrono::steady_clock::time_point last_sent_{};
  bool finishing_ = false;
  std::thread timer_;
};

}  // namespace kg::mcp
