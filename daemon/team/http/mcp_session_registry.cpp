#include "mcp_session_registry.hpp"


#include <algorithm>

#include "random_id.hpp"
#include <optional>
#include <vector>

namespace kg::team {

std::string random_session_id() { return codec::random_hex_id(16, "a session id"); }

McpSessionRegistry::McpSessionRegistry(RegistryOptions options, api::ApiContext& api,
                                       plugin::Logger& logger)
    : options_(std::move(options)), api_(api), logger_(logger),
      reaper_([this] { reap_idle_sessions(); }) {}

McpSessionRegistry::~McpSessionRegistry() { close_all(); }

std::shared_ptr<McpHttpSession> McpSessionRegistry::add(const SignedInUser& user, bool stateless,
                                                        const std::string& id) {
  std::shared_ptr<McpHttpSession> replaced;
  std::shared_ptr<McpHttpSession> session;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw TooManySessionsError("The server is shutting down");
    if (const auto it = sessions_.find(id); it != sessions_.end()) {
      if (!it->second->closed()) return it->second;  // a concurrent request made it first
      sessions_.erase(it);
    }
    if (!stateless) {
      std::size_t owned = 0;
      std::optional<McpHttpSession::Clock::time_point> oldest;
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        const auto& other = it->second;
        if (other->stateless() || other->owner().id != user.user_id) continue;
        ++owned;
        const auto idle = other->idle_since();
        if (idle && (!oldest || *idle < *oldest)) {
          oldest = idle;
          replaced = other;
        }
      }
      if (owned < options_.max_sessions_per_user) {
        replaced = nullptr;
      } else if (!replaced) {
        throw TooManySessionsError(
            "You have " + std::to_string(owned) + " MCP sessions open and every one is running "
            "a request; this server allows one user " +
            std::to_string(options_.max_sessions_per_user) +
            " ([team] max_sessions_per_user). Wait for one to finish, or end one (DELETE)");
      } else {
        sessions_.erase(replaced->id());
      }
    }
    session = std::make_shared<McpHttpSession>(
        id, stateless, api_, session::SessionOwner{user.user_id, user.email}, options_.identity,
        logger_, tasks_);
    sessions_.emplace(id, session);
  }
  if (replaced) {
    replaced->close("replaced by a new session of the same user ([team] max_sessions_per_user = " +
                    std::to_string(options_.max_sessions_per_user) + ")");
  }
  logger_.log(plugin::LogLevel::info, std::string(stateless ? "Stateless lane " : "MCP session ") +
                                          id + " opened for " + user.email);
  return session;
}

std::shared_ptr<McpHttpSession> McpSessionRegistry::create(const SignedInUser& user) {
  return add(user, false, random_session_id());
}

std::shared_ptr<McpHttpSession> McpSessionRegistry::stateless_lane(const SignedInUser& user) {
  const std::string id = "stateless:" + user.user_id;
  {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it != sessions_.end() && !it->second->closed()) return it->second;
    if (it != sessions_.end()) sessions_.erase(it);
  }
  return add(user, true, id);
}

std::shared_ptr<McpHttpSession> McpSessionRegistry::find(const std::string& id,
                                                         const SignedInUser& user) {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->stateless() || it->second->closed() ||
      it->second->owner().id != user.user_id) {
    return nullptr;
  }
  return it->second;
}

bool McpSessionRegistry::close(const std::string& id, const SignedInUser& user,
                               const std::string& why) {
  std::shared_ptr<McpHttpSession> session = find(id, user);
  if (!session) return false;
  {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
  }
  session->close(why);
  return true;
}

void McpSessionRegistry::close_all() {
  std::map<std::string, std::shared_ptr<McpHttpSession>> sessions;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    sessions.swap(sessions_);
  }
  stop_signal_.notify_all();
  if (reaper_.joinable()) reaper_.join();
  for (auto& [id, session] : sessions) session->close("the daemon is stopping");
}

void McpSessionRegistry::reap_idle_sessions() {
  const auto period = std::clamp<std::chrono::seconds>(options_.idle_timeout / 4,
                                                       std::chrono::seconds(1),
                                                       std::chrono::seconds(30));
  std::unique_lock lock(mutex_);
  while (!stop_signal_.wait_for(lock, period, [this] { return stopping_; })) {
    std::vector<std::shared_ptr<McpHttpSession>> idle;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->closed() || it->second->idle_longer_than(options_.idle_timeout)) {
        idle.push_back(it->second);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    for (auto& session : idle) {
      session->close("idle for more than " + std::to_string(options_.idle_timeout.count()) + " s");
    }
    lock.lock();
  }
}

}  // namespace kg::team
