#include "mcp_http_session.hpp"

namespace kg::team {

McpHttpSession::McpHttpSession(std::string id, bool stateless, api::ApiContext& api,
                               session::SessionOwner owner, TeamIdentity identity,
                               plugin::Logger& logger, std::shared_ptr<mcp::TaskStore> tasks)
    : id_(std::move(id)),
      stateless_(stateless),
      logger_(logger),
      backend_(api, std::move(owner), "mcp-http", std::move(identity)),
      tools_(backend_),
      server_(tools_, backend_, logger, mcp::ServerIdentity{}) {
  // By user, not by session: a client that reconnects with a new session still finds its tasks.
  server_.use_task_store(std::move(tasks), backend_.owner().id);
}

bool McpHttpSession::handle(std::shared_ptr<mcp::IncomingMessage> message,
                            std::shared_ptr<mcp::ReplyChannel> reply) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  last_used_ = Clock::now();
  server_.handle(std::move(message), std::move(reply));
  return true;
}

void McpHttpSession::begin_request() {
  std::lock_guard lock(mutex_);
  ++in_flight_;
  last_used_ = Clock::now();
}

void McpHttpSession::end_request() {
  std::lock_guard lock(mutex_);
  if (in_flight_ > 0) --in_flight_;
  last_used_ = Clock::now();
}

bool McpHttpSession::idle_longer_than(std::chrono::seconds limit) const {
  auto& self = const_cast<McpHttpSession&>(*this);
  std::lock_guard lock(self.mutex_);
  return in_flight_ == 0 && !server_.running_tasks() && Clock::now() - last_used_ > limit;
}

std::optional<McpHttpSession::Clock::time_point> McpHttpSession::idle_since() const {
  auto& self = const_cast<McpHttpSession&>(*this);
  std::lock_guard lock(self.mutex_);
  if (in_flight_ > 0 || server_.running_tasks()) return std::nullopt;
  return last_used_;
}

void McpHttpSession::close(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    if (closed_.exchange(true)) return;
  }
  logger_.log(plugin::LogLevel::info, "MCP session " + id_ + " of " + owner().email +
                                          " closed: " + why);
  server_.shutdown();  // cancels the call in flight and closes the daemon session
  closed_signal_.notify_all();
}

bool McpHttpSession::claim_event_stream() {
  std::lock_guard lock(mutex_);
  if (event_stream_open_) return false;
  event_stream_open_ = true;
  return true;
}

void McpHttpSession::release_event_stream() {
  std::lock_guard lock(mutex_);
  event_stream_open_ = false;
}

bool McpHttpSession::wait_closed(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  return closed_signal_.wait_for(lock, wait, [this] { return closed_.load(); });
}

}  // namespace kg::team
