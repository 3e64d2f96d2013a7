// The MCP server's only way to stdout: writes whole protocol lines to a file descriptor under a
// mutex, so a response from the tool-call thread and a ping answer from the reading thread never
// interleave. When the client has gone (EPIPE) further lines are dropped quietly; the reading
// loop ends on its own when stdin closes.
// Shared by the reading thread and the tool-call worker.
#pragma once

#include <mutex>
#include <string_view>

#include "reply_channel.hpp"

namespace kg::mcp {

// Every request's ReplyChannel on stdio: notifications and answers are all lines on stdout.
class ProtocolWriter final : public ReplyChannel {
 public:
  explicit ProtocolWriter(int fd) : fd_(fd) {}

  void notify(std::string_view line) override { write_line(line); }
  void respond(std::string_view line) override { write_line(line); }

  // Writes `line` and a '\n'. The line must not contain a newline (JSON from rapidjson never
  // does: it escapes control characters).
  void write_line(std::string_view line);

  bool broken() const;

 private:
  mutable std::mutex mutex_;
  int fd_;
  bool broken_ = false;
};

}  // namespace kg::mcp
