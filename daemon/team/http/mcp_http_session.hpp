// One MCP connection over HTTP: a 2025-11-25 session (made by initialize, named by its
// Mcp-Session-Id) or a user's stateless lane (every 2026-07-28 request of that user). It owns the
// connection's MCP server, its tools and its InProcessSessionBackend, so the daemon session and
// sandbox behind it are the user's alone, and close() releases them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "in_process_backend.hpp"
#include "mcp_server.hpp"
#include "tool_catalog.hpp"

namespace kg::team {

class McpHttpSession {
 public:
  using Clock = std::chrono::steady_clock;

  // `tasks`: the daemon's one task store; this session's tasks belong to its user there.
  McpHttpSession(std::string id, bool stateless, api::ApiContext& api,
                 session::SessionOwner owner, TeamIdentity identity, plugin::Logger& logger,
                 std::shared_ptr<mcp::TaskStore> tasks);
  ~McpHttpSession() { close("released"); }

  const std::string& id() const noexcept { return id_; }
  bool stateless() const noexcept { return stateless_; }
  const session::SessionOwner& owner() const noexcept { return backend_.owner(); }

  // Hands a message to the MCP server, one at a time. False once the session is closed.
  bool handle(std::shared_ptr<mcp::IncomingMessage> message,
              std::shared_ptr<mcp::ReplyChannel> reply);
  // A client that went away cancels its request (found by its reply channel: request ids are
  // the clients', and a user's stateless lane serves several clients).
  void cancel(const mcp::ReplyChannel* reply) { server_.cancel_reply(reply); }
  std::optional<std::string> legacy_version() const { return server_.legacy_version(); }

  // Requests in progress, and tasks queued or running, keep the session from idling out.
  void begin_request();
  void end_request();
  bool idle_longer_than(std::chrono::seconds limit) const;
  // When its last request ended; nullopt while a request is in progress.
  std::optional<Clock::time_point> idle_since() const;

  // Cancels what runs, closes the daemon session (releasing its sandbox) and wakes GET streams.
  // Idempotent.
  void close(const std::string& why);
  bool closed() const noexcept { return closed_; }
  // The session's one GET event stream: true for the caller that may open it (none is open).
  bool claim_event_stream();
  void release_event_stream();
  // Waits up to `wait` for close(); true when closed.
  bool wait_closed(std::chrono::milliseconds wait);

 private:
  std::string id_;
  bool stateless_;
  plugin::Logger& logger_;
  InProcessSessionBackend backend_;
  mcp::ToolCatalog tools_;
  mcp::McpServer server_;
  std::mutex mutex_;  // serializes handle(); guards last_used_ and in_flight_
  std::condition_variable closed_signal_;
  Clock::time_point last_used_ = Clock::now();
  int in_flight_ = 0;
  bool event_stream_open_ = false;
  std::atomic<bool> closed_{false};
};

}  // namespace kg::team
