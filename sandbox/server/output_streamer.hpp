// Streams one /execute command's output to its client while the command runs
// (docs/sandbox-api.md, "Streamed output"): the runner hands it every chunk it reads from the
// command's pipes; it cuts them into pieces of at most one line (a line longer than
// kMaxStreamedLineBytes is cut, a partial line is sent once it has waited kPartialLineWait) and
// queues them for a writer thread that writes NDJSON lines to the answer.
//
// Bounded everywhere: the queue holds at most kMaxQueuedBytes (a reader that falls behind loses
// what does not fit, counted and reported as "slow_reader", so the command is never stalled by
// its reader), and at most StreamRequest::max_bytes are streamed in all ("limit"). A writer
// that fails (the client hung up) discards the rest.
//
// printed() and idle() are called by the runner on the request's thread; the writer thread is
// the object's own; finish() joins it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <thread>

#include "sandbox_api/execute_stream.hpp"

namespace kg::sandbox {

// What the runner tells about a command's output as it reads it (command_runner.hpp).
class OutputListener {
 public:
  virtual ~OutputListener() = default;
  virtual void printed(bool is_stderr, std::span<const char> bytes) = 0;
  // Called after every wait; sends a partial line that has waited long enough.
  virtual void idle() = 0;
};

class OutputStreamer final : public OutputListener {
 public:
  static constexpr std::size_t kMaxQueuedBytes = 256 * 1024;
  static constexpr std::chrono::milliseconds kPartialLineWait{100};

  OutputStreamer(std::ostream& out, wire::sandbox_api::StreamRequest request);
  ~OutputStreamer() override;
  OutputStreamer(const OutputStreamer&) = delete;
  OutputStreamer& operator=(const OutputStreamer&) = delete;

  void printed(bool is_stderr, std::span<const char> bytes) override;
  void idle() override;
  // Sends what is pending and the counts of what was dropped, then stops the writer thread.
  // Afterwards the caller writes the final line to `out` itself. Idempotent.
  void finish();

 private:
  struct Pending {
    std::string line;  // the partial line not sent yet
    bool skipping = false;  // dropping the rest of a cut or skipped line up to its '\n'
    bool at_line_start = true;
    std::chrono::steady_clock::time_point since;
  };
  void take_bytes(bool is_stderr, std::span<const char> bytes);
  void send_piece(bool is_stderr, std::string text, bool cut);
  void drop(std::uint64_t bytes, wire::sandbox_api::DropReason reason);
  void enqueue(std::string line);
  void write_loop();

  std::ostream& out_;
  const wire::sandbox_api::StreamRequest request_;
  Pending pending_[2];  // stdout, stderr
  std::uint64_t streamed_bytes_ = 0;
  std::uint64_t dropped_slow_ = 0;
  std::uint64_t dropped_limit_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  bool stopping_ = false;
  bool broken_ = false;  // the client stopped taking lines
  std::thread writer_;
  bool finished_ = false;
};

}  // namespace kg::sandbox
