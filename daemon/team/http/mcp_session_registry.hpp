// Every MCP connection the HTTP transport has open, by id and by user: creates sessions (at most
// [team] max_sessions_per_user per user, besides the user's stateless lane: a new one replaces
// the user's longest-idle session, since many clients never send DELETE; only when every one is
// busy is it refused), finds them only for their
// own user (another user's id is as unknown as a made-up one), holds the one task store they
// share (tasks are the user's, not the session's), closes them on DELETE, and closes
// those idle longer than [team] idle_timeout_s from a thread of its own. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "http_exchange.hpp"
#include "mcp_http_session.hpp"

namespace kg::team {

// The user already has max_sessions_per_user sessions open.
class TooManySessionsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RegistryOptions {
  std::uint32_t max_sessions_per_user = 4;
  std::chrono::seconds idle_timeout{900};
  TeamIdentity identity;
};

class McpSessionRegistry {
 public:
  McpSessionRegistry(RegistryOptions options, api::ApiContext& api, plugin::Logger& logger);
  ~McpSessionRegistry();

  // A new 2025-11-25 session for `user`, replacing the user's longest-idle one when they have
  // max_sessions_per_user. Throws TooManySessionsError when all of those are busy.
  std::shared_ptr<McpHttpSession> create(const SignedInUser& user);
  // The user's stateless lane for 2026-07-28 requests, made on first use.
  std::shared_ptr<McpHttpSession> stateless_lane(const SignedInUser& user);
  // The user's open session `id`; null when there is none (or it is another user's).
  std::shared_ptr<McpHttpSession> find(const std::string& id, const SignedInUser& user);
  // Closes the user's session `id`; false when there is none.
  bool close(const std::string& id, const SignedInUser& user, const std::string& why);

  // Closes every session (daemon shutdown) and stops the idle reaper.
  void close_all();

 private:
  std::shared_ptr<McpHttpSession> add(const SignedInUser& user, bool stateless,
                                      const std::string& id);
  void reap_idle_sessions();

  RegistryOptions options_;
  api::ApiContext& api_;
  plugin::Logger& logger_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::map<std::string, std::shared_ptr<McpHttpSession>> sessions_;
  // Every session's tasks, by user: they outlive the session that started them.
  std::shared_ptr<mcp::TaskStore> tasks_ = std::make_shared<mcp::TaskStore>();
  std::thread reaper_;
};

// 32 random hex digits from the kernel's CSPRNG.
std::string random_session_id();

}  // namespace kg::team
