#include "line_reader.hpp"

#include <cerrno>

#include <poll.h>
#include <unistd.h>

namespace kg::mcp {

LineReader::LineReader(int fd, std::size_t max_line_bytes, int stop_fd)
    : fd_(fd), max_line_bytes_(max_line_bytes), stop_fd_(stop_fd) {}

bool LineReader::fill() {
  if (eof_) return false;
  // Drop what was consumed before growing, so the buffer never holds more than one line + 64 KiB.
  if (start_ > 0) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  char chunk[64 * 1024];
  for (;;) {
    if (stop_fd_ >= 0) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        eof_ = true;
        return false;
      }
      if ((fds[1].revents & POLLIN) != 0) {
        eof_ = true;
        stopped_ = true;
        return false;
      }
    }
    const ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
      return true;
    }
    if (got < 0 && errno == EINTR) continue;
    eof_ = true;
    return false;
  }
}

std::optional<InputLine> LineReader::next() {
  InputLine line;
  std::size_t scanned = start_;
  for (;;) {
    const std::size_t newline = buffer_.find('\n', scanned);
    if (newline != std::string::npos) {
      if (line.dropped_bytes > 0 || newline - start_ > max_line_bytes_) {
        line.dropped_bytes += newline - start_;
      } else {
        line.text.assign(buffer_, start_, newline - start_);
        if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
      }
      start_ = newline + 1;
      return line;
    }
    if (buffer_.size() - start_ > max_line_bytes_) {
      // Too long to keep: count it and let it go, then look for its end in what follows.
      line.dropped_bytes += buffer_.size() - start_;
      start_ = buffer_.size();
    }
    scanned = buffer_.size();
    const std::size_t before = start_;
    if (!fill()) {
      if (stopped_) return std::nullopt;  // a half-received message is not worth answering
      if (line.dropped_bytes > 0) return line;
      if (buffer_.size() > start_) {  // a last line without '\n'
        line.text.assign(buffer_, start_, std::string::npos);
        start_ = buffer_.size();
        return line;
      }
      return std::nullopt;
    }
    // fill() moved the unread bytes to the front of the buffer.
    scanned -= before;
  }
}

}  // namespace kg::mcp
