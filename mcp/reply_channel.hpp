// Where the answer to one MCP request goes, with the notifications sent while it runs: for the
// stdio shim, the one stdout writer (every line of every request); for streamable HTTP, the
// POST that carried the request (its JSON body, or its SSE stream). Lines are whole JSON-RPC
// messages without a trailing newline.
//
// Called from the reading thread (quick answers) and the tool-call worker (tools/call);
// implementations are thread-safe.
#pragma once

#include <string_view>

namespace kg::mcp {

class ReplyChannel {
 public:
  virtual ~ReplyChannel() = default;
  // A notification about the request (notifications/progress), before its answer.
  virtual void notify(std::string_view line) = 0;
  // The request's answer: the last line this channel gets.
  virtual void respond(std::string_view line) = 0;
  // The request ends without an answer (the client cancelled it, or the server stopped): MCP
  // sends none. Nothing more follows.
  virtual void end_unanswered() noexcept {}
};

}  // namespace kg::mcp
