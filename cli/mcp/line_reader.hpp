// Reads newline-delimited messages from a file descriptor (the MCP server's stdin) with a cap
// on a line's length: a longer line is read to its end and thrown away, and reported as such,
// so one oversized message costs neither the process nor the messages after it.
// Used by McpServer's reading loop on the main thread only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace kg::mcp {

struct InputLine {
  std::string text;               // without '\n' (and without a trailing '\r')
  std::size_t dropped_bytes = 0;  // > 0: the line was longer than the cap and text is empty
};

class LineReader {
 public:
  // stop_fd, when given, ends the input early as soon as it becomes readable (serve passes a
  // signalfd, so SIGTERM shuts the server down like a closed stdin does).
  LineReader(int fd, std::size_t max_line_bytes, int stop_fd = -1);

  // The next line; std::nullopt at end of input (a last line without '\n' is still returned).
  // A read error other than EINTR is treated as end of input.
  std::optional<InputLine> next();

  std::size_t max_line_bytes() const noexcept { return max_line_bytes_; }

 private:
  bool fill();

  int fd_;
  std::size_t max_line_bytes_;
  int stop_fd_;
  std::string buffer_;
  std::size_t start_ = 0;  // first unread byte of buffer_
  bool eof_ = false;
  bool stopped_ = false;  // stop_fd fired
};

}  // namespace kg::mcp
