// Owns the daemon's sessions: one sandbox per session, opened lazily on the first call and
// reused by later ones; calls in a session run one at a time, sessions run in parallel.
// Every session and call is recorded in the Store as it happens, so a crash loses nothing.
//
// Owned by Instance; every method is safe to call from any API thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base_cache.hpp"
#include "binary_cache.hpp"
#include "module_tidier.hpp"
#include "config/daemon_config.hpp"
#include "local_sandbox_provider.hpp"
#include "plugin_registry.hpp"
#include "runtime_plugin.hpp"
#include "store/store.hpp"

namespace kg::session {

struct CallRequest {
  plugin::ExecuteRequest execute;
  std::string runtime;  // empty: the session's runtime
  std::optional<std::uint32_t> timeout_ms;
};

struct CallResult {
  std::int64_t call_id = 0;
  std::string session_id;
  std::string runtime;
  std::uint64_t queue_ms = 0;
  std::uint64_t duration_ms = 0;
  plugin::ExecuteResult result;
};

struct SessionManagerOptions {
  std::string provider_name = "local";
  std::string default_runtime = "compiled-go";
  std::uint32_t max_sessions = 16;
  config::LimitsConfig limits;
  std::vector<std::string> curated_packages;  // for package_docs
};

class SessionManager {
 public:
  SessionManager(SessionManagerOptions options, sandbox::LocalSandboxProvider& provider,
                 sandbox::BaseCache& base_cache, sandbox::BinaryCache* binary_cache,
                 sandbox::ModuleTidier& tidier,
                 plugin_host::PluginRegistry& plugins,
                 store::Store& store, plugin::Logger& logger);
  ~SessionManager();

  // Throws QueueFullError at max_sessions, RuntimeUnavailableError for an unknown runtime.
  store::SessionRecord open(const std::string& client, const std::string& runtime);
  // Stops the session's sandbox; closing a closed session is fine. Throws SessionNotFoundError.
  store::SessionRecord close(const std::string& session_id, const std::string& reason);
  store::SessionRecord get(const std::string& session_id);  // throws SessionNotFoundError

  // Runs one call. Throws SessionNotFoundError, SessionClosedError, RuntimeUnavailableError,
  // plugin::InvalidInputError, plugin::SandboxError (all recorded in the store first).
  CallResult execute(const std::string& session_id, CallRequest request,
                     plugin::ProgressSink& progress);

  // Stops the session's running call, if any (the sandbox kills the command; the call throws
  // CancelledError). Returns whether a call was running. Throws SessionNotFoundError.
  bool cancel(const std::string& session_id);

  // `go doc <package> [<symbol>]` against the curated lockfile, in the session's sandbox, without
  // touching /app. package must be curated and symbol a Go identifier path (else
  // plugin::InvalidInputError); an unknown symbol is an InvalidInputError with go doc's message.
  std::string package_docs(const std::string& session_id, const std::string& package,
                           const std::string& symbol);

  // At shutdown: closes every open session and stops its sandbox.
  void close_all(const std::string& reason) noexcept;

 private:
  struct Session;
  std::shared_ptr<Session> find_open(const std::string& session_id);
  void ensure_sandbox(Session& session, plugin::ProgressSink& progress);
  plugin::RuntimePlugin& runtime_for(const std::string& name, std::string& resolved_name);
  plugin::ExecuteResult run_in_sandbox(Session& session, plugin::RuntimePlugin& runtime,
                                       const plugin::ExecuteRequest& request,
                                       plugin::ProgressSink& progress, std::uint64_t& setup_ms);

  SessionManagerOptions options_;
  sandbox::LocalSandboxProvider& provider_;
  sandbox::BaseCache& base_cache_;
  sandbox::BinaryCache* binary_cache_;
  sandbox::ModuleTidier& tidier_;
  plugin_host::PluginRegistry& plugins_;
  store::Store& store_;
  plugin::Logger& logger_;
  std::atomic<bool> shutting_down_{false};
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
};

}  // namespace kg::session
