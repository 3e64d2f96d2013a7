// The ReplyChannel of one POST to /mcp: the MCP server (and its tool-call worker) put lines in,
// the HTTP handler thread takes them out and writes them, as one JSON body or as SSE events.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "reply_channel.hpp"

namespace kg::team {

class QueuedReply final : public mcp::ReplyChannel {
 public:
  struct Item {
    enum class Kind { notification, answer, unanswered } kind;
    std::string line;  // empty for unanswered
  };

  void notify(std::string_view line) override { push({Item::Kind::notification, std::string(line)}); }
  void respond(std::string_view line) override { push({Item::Kind::answer, std::string(line)}); }
  void end_unanswered() noexcept override;

  // The next item, or nullopt when none came within `wait`.
  std::optional<Item> next(std::chrono::milliseconds wait);

 private:
  void push(Item item);

  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Item> items_;
};

}  // namespace kg::team
