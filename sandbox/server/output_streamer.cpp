#include "output_streamer.hpp"

#include <algorithm>

namespace kg::sandbox {

namespace wire = kg::wire::sandbox_api;

OutputStreamer::OutputStreamer(std::ostream& out, wire::StreamRequest request)
    : out_(out), request_(std::move(request)), writer_([this] { write_loop(); }) {}

OutputStreamer::~OutputStreamer() {
  try {
    finish();
  } catch (...) {
  }
}

void OutputStreamer::printed(bool is_stderr, std::span<const char> bytes) {
  take_bytes(is_stderr, bytes);
}

void OutputStreamer::take_bytes(bool is_stderr, std::span<const char> bytes) {
  Pending& pending = pending_[is_stderr ? 1 : 0];
  while (!bytes.empty()) {
    const auto newline = std::find(bytes.begin(), bytes.end(), '\n');
    const bool ends_line = newline != bytes.end();
    const std::size_t length = static_cast<std::size_t>(newline - bytes.begin()) + (ends_line ? 1 : 0);
    const std::span<const char> part = bytes.first(length);
    bytes = bytes.subspan(length);
    if (pending.skipping) {
      if (ends_line) {
        pending.skipping = false;
        pending.at_line_start = true;
      }
      continue;
    }
    if (pending.line.empty()) pending.since = std::chrono::steady_clock::now();
    pending.line.append(part.data(), part.size());
    // A line the caller's runner writes for itself (skip_prefix) is never streamed; it is
    // known to be one as soon as its first bytes are.
    if (pending.at_line_start && !request_.skip_prefix.empty()) {
      const std::size_t known = std::min(pending.line.size(), request_.skip_prefix.size());
      if (pending.line.compare(0, known, request_.skip_prefix, 0, known) != 0) {
        pending.at_line_start = false;
      } else if (known == request_.skip_prefix.size()) {
        pending.line.clear();
        pending.skipping = !ends_line;
        continue;
      } else if (!ends_line) {
        continue;  // too short to tell yet
      } else {
        pending.at_line_start = false;
      }
    }
    if (pending.line.size() > wire::kMaxStreamedLineBytes) {
      pending.line.resize(wire::kMaxStreamedLineBytes);
      send_piece(is_stderr, std::move(pending.line), true);
      pending.line.clear();
      pending.skipping = !ends_line;
      pending.at_line_start = ends_line;
      continue;
    }
    if (ends_line) {
      send_piece(is_stderr, std::move(pending.line), false);
      pending.line.clear();
      pending.at_line_start = true;
    }
  }
}

void OutputStreamer::idle() {
  const auto now = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    Pending& pending = pending_[i];
    if (pending.line.empty() || now - pending.since < kPartialLineWait) continue;
    // Not sent while it may still turn out to be a skipped runner line.
    if (pending.at_line_start && !request_.skip_prefix.empty()) continue;
    send_piece(i == 1, std::move(pending.line), false);
    pending.line.clear();
  }
}

void OutputStreamer::send_piece(bool is_stderr, std::string text, bool cut) {
  if (streamed_bytes_ + text.size() > request_.max_bytes) {
    drop(text.size(), wire::DropReason::limit);
    return;
  }
  // Checked before the piece is encoded, so a flood the reader cannot take costs little: the
  // encoded line is the text plus at most kEnvelopeBytes (more only for escaped bytes).
  constexpr std::size_t kEnvelopeBytes = 64;
  {
    const std::lock_guard lock(mutex_);
    if (broken_) return;
    if (queued_bytes_ + text.size() + kEnvelopeBytes > kMaxQueuedBytes) {
      dropped_slow_ += text.size();
      return;
    }
  }
  streamed_bytes_ += text.size();
  enqueue(wire::encode_output_piece({is_stderr, std::move(text), cut}));
}

void OutputStreamer::drop(std::uint64_t bytes, wire::DropReason reason) {
  (reason == wire::DropReason::limit ? dropped_limit_ : dropped_slow_) += bytes;
}

void OutputStreamer::enqueue(std::string line) {
  {
    const std::lock_guard lock(mutex_);
    if (broken_) return;
    // A gap is reported where it happened, before the next line that made it through.
    if (dropped_slow_ > 0) {
      std::string gap = wire::encode_output_dropped({dropped_slow_, wire::DropReason::slow_reader});
      queued_bytes_ += gap.size();
      queue_.push_back(std::move(gap));
      dropped_slow_ = 0;
    }
    queued_bytes_ += line.size();
    queue_.push_back(std::move(line));
  }
  wake_.notify_one();
}

void OutputStreamer::finish() {
  if (finished_) return;
  finished_ = true;
  for (int i = 0; i < 2; ++i) {
    Pending& pending = pending_[i];
    const bool runner_line = pending.at_line_start && !request_.skip_prefix.empty() &&
                             request_.skip_prefix.compare(0, pending.line.size(), pending.line) == 0;
    if (!pending.line.empty() && !runner_line) send_piece(i == 1, std::move(pending.line), false);
    pending.line.clear();
  }
  {
    const std::lock_guard lock(mutex_);
    if (!broken_) {
      if (dropped_slow_ > 0) {
        queue_.push_back(
            wire::encode_output_dropped({dropped_slow_, wire::DropReason::slow_reader}));
      }
      if (dropped_limit_ > 0) {
        queue_.push_back(wire::encode_output_dropped({dropped_limit_, wire::DropReason::limit}));
      }
    }
    stopping_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
}

void OutputStreamer::write_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and all written
    std::deque<std::string> batch;
    batch.swap(queue_);
    queued_bytes_ = 0;
    lock.unlock();
    bool ok = true;
    try {
      for (const auto& line : batch) out_ << line << '\n';
      out_.flush();
      ok = static_cast<bool>(out_);
    } catch (...) {
      ok = false;
    }
    lock.lock();
    if (!ok) {
      broken_ = true;
      queue_.clear();
      return;
    }
  }
}

}  // namespace kg::sandbox
