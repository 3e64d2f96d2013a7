// SessionManager: opening, closing, cancelling and shutting down sessions, and their sandboxes.
#include "session_manager.hpp"


#include <random>

#include "error_chain.hpp"
#include "managed_session.hpp"
#include "runtime_choice.hpp"
#include "session_errors.hpp"

namespace kg::session {

SessionManager::SessionManager(SessionManagerOptions options,
                               sandbox::SandboxProvider& provider,
                               sandbox::BaseCache* base_cache,
                               plugin_host::PluginRegistry& plugins,
                               CallCredentials& credentials, store::Store& store,
                               plugin::Logger& logger)
    : options_(std::move(options)),
      provider_(provider),
      base_cache_(base_cache),
      plugins_(plugins),
      credentials_(credentials),
      store_(store),
      logger_(logger),
      slots_(SlotQueueLimits{options_.max_sessions, options_.max_queued,
                             std::chrono::milliseconds(options_.queue_timeout_ms)}),
      warm_pool_(std::make_unique<WarmSandboxPool>(
          provider_, base_cache_ == nullptr || base_cache_->current(),
          [this](sandbox::Sandbox& sandbox) { warm_up(sandbox); }, options_.warm_pool, logger_)) {
  if (!options_.call_files_dir.empty()) {
    files_ = std::make_unique<CallFileStore>(options_.call_files_dir);
  }
  // Before any call can start a build: the pool sleeps until the cache is current.
  if (base_cache_ != nullptr) {
    base_cache_->on_current([pool = warm_pool_.get()] { pool->base_cache_current(); });
  }
}

SessionManager::~SessionManager() { close_all("daemon stopped"); }

std::string SessionManager::new_session_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "s-%016llx", static_cast<unsigned long long>(rng()));
  return buffer;
}

plugin::RuntimePlugin& SessionManager::plugin_for(const std::string& name,
                                                  const std::string& requested) {
  if (auto* runtime = plugins_.runtime(name)) return *runtime;
  // auto needs both plugins; say which one is missing.
  const std::string what = requested == name
                               ? "Runtime '" + name + "'"
                               : "Runtime '" + requested + "' needs runtime '" + name + "', which";
  const auto* loaded = plugins_.find_runtime(name);
  if (loaded) throw RuntimeUnavailableError(what + " is disabled: " + loaded->reason);
  throw RuntimeUnavailableError(what +
                                " is not loaded; `kode-gopher plugins` lists the loaded ones");
}

RuntimePlan SessionManager::plan_for(const std::string& requested,
                                     const std::string& session_runtime) {
  auto plan = plan_runtime(requested, session_runtime, options_.default_runtime, runtime_offer());
  plugin_for(plan.first, plan.requested);
  if (plan.auto_select) plugin_for(plan.second, plan.requested);
  return plan;
}

RuntimeOffer SessionManager::runtime_offer() const {
  return {plugins_.runtime_names(), options_.auto_order};
}

std::vector<RuntimeState> SessionManager::runtime_states() {
  std::vector<RuntimeState> states =
      describe_runtimes(runtime_offer(), options_.default_runtime, [&](const std::string& name) {
        const auto* plugin = plugins_.find_runtime(name);
        return plugin ? plugin->description : std::string();
      });
  for (RuntimeState& state : states) {
    try {
      plan_for(state.name, "");
      state.available = true;
    } catch (const std::exception& e) {
      state.reason = e.what();
    }
  }
  return states;
}

store::SessionRecord SessionManager::open(const std::string& client, const std::string& runtime,
                                          const SlotWait& wait, const SessionOwner& owner) {
  const std::string id = new_session_id();
  open_with_id(id, client, runtime, wait, owner);
  return get(id);
}

std::uint64_t SessionManager::open_with_id(const std::string& id, const std::string& client,
                                           const std::string& runtime, const SlotWait& wait,
                                           const SessionOwner& owner) {
  // An unknown or unavailable runtime fails now, not after a wait.
  const std::string runtime_name = plan_for(runtime, "").requested;
  auto session = std::make_shared<Session>();
  session->record.id = id;
  session->record.client = client.empty() ? "api" : client;
  session->record.provider = std::string(provider_.name());
  session->record.runtime = runtime_name;
  session->record.owner = owner.id;
  session->record.owner_email = owner.email;
  const std::uint64_t waited_ms = slots_.acquire(id, wait);
  try {
    std::lock_guard lock(mutex_);
    // close_all() may have collected the open sessions while this caller took its slot.
    if (shutting_down_) throw ShuttingDownError("The daemon is shutting down; it opens no new sessions");
    store_.insert_session(session->record);
    sessions_.emplace(id, session);
  } catch (...) {
    slots_.release();
    throw;
  }
  logger_.log(plugin::LogLevel::info,
              "Session " + id + " opened for " + session->record.client +
                  (owner.id.empty() ? "" : " (user " + owner.email + ")") +
                  (waited_ms > 0 ? " after " + std::to_string(waited_ms) + " ms in the queue" : ""));
  return waited_ms;
}

store::SessionRecord SessionManager::get(const std::string& session_id) {
  auto record = store_.find_session(session_id);
  if (!record) throw SessionNotFoundError("No session '" + session_id + "'");
  return *record;
}

std::shared_ptr<SessionManager::Session> SessionManager::find_open(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(session_id);
  if (it != sessions_.end()) return it->second;
  if (store_.find_session(session_id)) {
    throw SessionClosedError("Session '" + session_id + "' is closed; open a new one");
  }
  throw SessionNotFoundError("No session '" + session_id + "'");
}

store::SessionRecord SessionManager::close(const std::string& session_id,
                                           const std::string& reason) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it != sessions_.end()) {
      session = it->second;
      sessions_.erase(it);
    }
  }
  if (session) {
    // The slot is free again once the sandbox is gone, however closing ends.
    struct SlotRelease {
      SessionSlotQueue& slots;
      ~SlotRelease() { slots.release(); }
    } release{slots_};
    std::lock_guard call_lock(session->call_mutex);  // waits for a running call to end
    session->closed = true;
    session->set_sandbox(nullptr);
    if (files_) files_->drop_session(session->record.owner, session_id);
    store_.close_session(session_id, "closed", reason);
    logger_.log(plugin::LogLevel::info, "Session " + session_id + " closed (" + reason + ")");
  }
  return get(session_id);
}

bool SessionManager::cancel(const std::string& session_id) {
  if (slots_.cancel(session_id)) {
    logger_.log(plugin::LogLevel::info,
                "Session " + session_id + ": queued call cancelled by the client");
    return true;
  }
  auto session = find_open(session_id);
  if (!session->call_running) return false;
  session->canceller.cancel();
  logger_.log(plugin::LogLevel::info, "Session " + session_id + ": call cancelled by the client");
  return true;
}

void SessionManager::close_all(const std::string& reason) noexcept {
  shutting_down_ = true;
  // A prewarm under way is killed: callers waiting on it end with shutting_down. (Instance
  // stops a go mod tidy under way first.)
  if (base_cache_ != nullptr) base_cache_->stop();
  warm_pool_->stop();
  slots_.shut_down();
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, session] : sessions_) {
      ids.push_back(id);
      // Interrupt first, so a call in flight fails now instead of holding its session for
      // minutes. (A sandbox starting right now is released by ensure_sandbox, which checks
      // shutting_down_ after it publishes the sandbox.)
      session->interrupt_sandbox();
    }
  }
  for (const auto& id : ids) {
    try {
      close(id, reason);
    } catch (const std::exception& e) {
      logger_.log(plugin::LogLevel::error,
                  "Failed to close session " + id + ": " + describe_error_chain(e));
    }
  }
}

void SessionManager::ensure_sandbox(Session& session, plugin::ProgressSink& progress) {
  try {
    if (base_cache_ != nullptr) {
      base_cache_->ensure(
          [&](std::string_view line) { progress.phase_started(plugin::Phase::setup, line); },
          [&] { return session.canceller.cancelled(); });
    }
  } catch (const sandbox::BaseCacheStoppedError&) {
    std::throw_with_nested(ShuttingDownError("The daemon is shutting down; the call was stopped"));
  }
  if (session.sandbox && !session.sandbox->alive()) {
    logger_.log(plugin::LogLevel::warn, "Sandbox " + session.sandbox->id() + " of session " +
                                            session.record.id + " died; starting a new one");
    session.set_sandbox(nullptr);
  }
  if (!session.sandbox) {
    if (shutting_down_) throw ShuttingDownError("The daemon is shutting down; it starts no sandbox");
    auto sandbox = warm_pool_->take();
    if (!sandbox) {
      progress.phase_started(plugin::Phase::setup, "starting a sandbox");
      sandbox::SandboxRequest request;
      request.session_id = session.record.id;
      request.runtime = session.record.runtime;
      request.progress = [&](std::string_view line) {
        progress.phase_started(plugin::Phase::setup, line);
      };
      sandbox = provider_.open(request);
    }
    session.set_sandbox(std::move(sandbox));
    if (shutting_down_) {
      // close_all() may have looked for sandboxes to interrupt before this one was published.
      session.set_sandbox(nullptr);
      throw ShuttingDownError("The daemon is shutting down; the new sandbox was stopped");
    }
    store_.attach_sandbox(session.record.id, session.sandbox->id());
  }
}

}  // namespace kg::session
