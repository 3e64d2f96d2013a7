// Owns the daemon's sessions: one sandbox per session, opened lazily on the first call and
// reused by later ones; calls in a session run one at a time, sessions run in parallel, at most
// max_sessions of them (more callers wait in SessionSlotQueue's bounded FIFO queue).
// Every session and call is recorded in the Store as it happens, so a crash loses nothing.
//
// Owned by Instance; every method is safe to call from any API thread. Implemented in
// session_manager.cpp (sessions) and session_calls.cpp (calls, docs).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_call_audit.hpp"
#include "api_policy.hpp"
#include "base_cache.hpp"
#include "daemon_config.hpp"
#include "call_credentials.hpp"
#include "call_files.hpp"
#include "call_limits.hpp"
#include "sandbox_provider.hpp"
#include "warm_sandbox_pool.hpp"
#include "plugin_registry.hpp"
#include "runtime_choice.hpp"
#include "runtime_plugin.hpp"
#include "session_slot_queue.hpp"
#include "store/store.hpp"

namespace kg::session {

struct CallRequest {
  plugin::ExecuteRequest execute;
  std::string runtime;  // empty: the session's runtime
  std::optional<std::uint32_t> timeout_ms;
  RequestedLimits limits;  // the call's own resource limits (within the daemon's)
  // The call's narrowing of the daemon's API policy (docs/api-policy.md).
  wire::daemon_api::ExecuteApiPolicy api_policy;
  // Hears the program's output as it is printed (docs/daemon-api.md, "Progress"); null: none.
  sandbox::OutputSink* output = nullptr;
};

struct CallResult {
  std::int64_t call_id = 0;
  std::string session_id;
  std::string runtime;  // the runtime plugin that ran the call (auto resolves to one)
  std::string runtime_reason;  // with auto: why that one
  plugin::Action action = plugin::Action::run;  // what the call did: run, go test, go vet
  std::uint64_t queue_us = 0;
  std::uint64_t duration_us = 0;
  // Of duration_us: waiting on the sandbox (its runtime API requests, go mod tidy), and in how
  // many requests. duration − queue − setup − sandbox is the daemon's own work for the call.
  std::uint64_t sandbox_us = 0;
  std::uint32_t sandbox_requests = 0;
  plugin::ExecuteResult result;
  // The Google API requests the egress proxy read (docs/api-policy.md, "The audit"): at most
  // kMaxResultApiCalls of them, and the totals of all; all are in the store.
  std::vector<store::ApiCallRecord> api_calls;
  ApiCallTotals api_call_totals;
  // What the program left under /app/out, kept for the session (call_files.hpp).
  std::vector<OutFile> files;
};

// Team mode: the signed-in user a session belongs to . Empty for the
// Unix-socket API's sessions, which belong to the daemon's own user.
struct SessionOwner {
  std::string id;     // stable: issuer#subject, or "local"
  std::string email;
};


struct SessionManagerOptions {
  std::string default_runtime = "compiled-go";
  // [runtime] auto_order: the two runtimes auto offers a call to, in order; empty: no auto.
  std::vector<std::string> auto_order = {"yaegi", "compiled-go"};
  std::uint32_t max_sessions = 16;
  std::uint32_t max_queued = 64;
  std::uint32_t queue_timeout_ms = 120'000;
  config::LimitsConfig limits;
  std::vector<std::string> curated_packages;  // for package_docs
  std::uint32_t warm_pool = 1;  // started sandboxes kept ready for new sessions
  api_policy::ApiPolicy api_policy;  // [api_policy]: calls may narrow it
  // Where the files programs leave under /app/out are kept (CallFileStore); empty: not collected.
  std::string call_files_dir;
};

class SessionManager {
 public:
  // base_cache: the host's prewarmed Go build cache the provider's sandboxes read, made before a
  // first sandbox starts; null when the provider's sandboxes bring their own (Kubernetes image).
  SessionManager(SessionManagerOptions options, sandbox::SandboxProvider& provider,
                 sandbox::BaseCache* base_cache, plugin_host::PluginRegistry& plugins, CallCredentials& credentials,
                 store::Store& store, plugin::Logger& logger);
  ~SessionManager();

  // Opens a session, first waiting in line for a slot when max_sessions are open. Throws
  // UnknownRuntimeError for a runtime this build does not have and RuntimeUnavailableError for
  // one that is not loaded (both before waiting), and what
  // SessionSlotQueue::acquire throws: QueueFullError, CancelledError, ShuttingDownError.
  // `owner` is recorded with the session; its calls run with that user's credentials when
  // CallCredentials has a source for them.
  store::SessionRecord open(const std::string& client, const std::string& runtime,
                            const SlotWait& wait = {}, const SessionOwner& owner = {});
  // Stops the session's sandbox; closing a closed session is fine. Throws SessionNotFoundError.
  store::SessionRecord close(const std::string& session_id, const std::string& reason);
  store::SessionRecord get(const std::string& session_id);  // throws SessionNotFoundError

  // Runs one call, with the credentials CallCredentials makes for it. Throws
  // SessionNotFoundError, SessionClosedError, UnknownRuntimeError, RuntimeUnavailableError,
  // CredentialsUnavailableError, plugin::InvalidInputError, plugin::SandboxError (all
  // recorded in the store first).
  CallResult execute(const std::string& session_id, CallRequest request,
                     plugin::ProgressSink& progress);

  // One call in a session opened for it and closed after it (POST /v1/execute). The call's
  // queue_ms counts the wait for a session slot; the progress sink hears of that wait, with the
  // session id that cancel() takes meanwhile. caller_gone is polled while waiting (true: give
  // up). Throws what open() and execute() throw.
  CallResult execute_once(const std::string& client, CallRequest request,
                          plugin::ProgressSink& progress, std::function<bool()> caller_gone);

  // Stops the session's running call, if any (the sandbox kills the command; the call throws
  // CancelledError), or takes a one-shot call waiting for a slot under that session id out of
  // line. Returns whether there was such a call. Throws SessionNotFoundError.
  bool cancel(const std::string& session_id);

  // `go doc <package> [<symbol>]` against the curated lockfile (sandbox::PackageDocsLookup), in
  // the session's sandbox, without touching /app. package must be curated and symbol a Go
  // identifier path (else plugin::InvalidInputError); an unknown symbol is an InvalidInputError
  // with go doc's message.
  std::string package_docs(const std::string& session_id, const std::string& package,
                           const std::string& symbol);

  // A file a call of the session left under /app/out (session_files.cpp). `owner`: the caller's
  // SessionOwner::id, which must be the session's (team mode); nullopt for the daemon's own user
  // on the Unix socket, who may read any session's. Throws SessionNotFoundError (also for another
  // owner's session: it is not theirs to know of) and CallFileNotFoundError.
  OutFileContent call_file(const std::string& session_id, const std::optional<std::string>& owner,
                           std::int64_t call_id, const std::string& name);
  // Every file the session's calls left; the same checks and errors as call_file.
  std::vector<OutFile> call_files(const std::string& session_id,
                                  const std::optional<std::string>& owner);

  // At shutdown: refuses new sessions, wakes every queued caller (ShuttingDownError), kills
  // every sandbox (calls in flight end with ShuttingDownError, recorded as interrupted),
  // then closes every open session.
  void close_all(const std::string& reason) noexcept;
  // Every runtime a call may ask for (runtime_offer()), whether it can run now and
  // why not, and which one is the default: for GET /v1/plugins and `kode-gopher plugins`.
  std::vector<RuntimeState> runtime_states();
  // The daemon's [limits], which GET /v1/plugins reports for the MCP tool's description.
  const config::LimitsConfig& limits() const noexcept { return options_.limits; }
  // Started sandboxes waiting for new sessions (the warm pool).
  std::size_t warm_sandboxes_ready() { return warm_pool_->ready(); }
  std::optional<sandbox::ProviderMetrics> provider_metrics() { return provider_.metrics(); }

 private:
  struct Session;  // managed_session.hpp
  static std::string new_session_id();
  // open() with a given id; returns how long it waited for a slot, in ms.
  std::uint64_t open_with_id(const std::string& id, const std::string& client,
                             const std::string& runtime, const SlotWait& wait,
                             const SessionOwner& owner = {});
  CallResult run_call(Session& session, CallRequest request, plugin::ProgressSink& progress,
                      std::chrono::steady_clock::time_point started);
  std::shared_ptr<Session> find_open(const std::string& session_id);
  void ensure_sandbox(Session& session, plugin::ProgressSink& progress);
  // auto: why the plan's second runtime (compiled-go by default) answers this call sooner than
  // the first would, if it can say.
  std::optional<std::string> second_answers_sooner(const RuntimePlan& plan, Session& session,
                                                     const plugin::ExecuteRequest& request,
                                                     plugin::ProgressSink& progress);
  // The runtime(s) a call asking for `requested` runs with (empty: the session's, else the
  // default), checked to be loaded and available. Throws UnknownRuntimeError or
  // RuntimeUnavailableError.
  RuntimePlan plan_for(const std::string& requested, const std::string& session_runtime);
  // The runtime names the loaded plugins offer, and auto as the config orders it.
  RuntimeOffer runtime_offer() const;
  // The loaded, available runtime plugin `name` (asked for as `requested`, for the message).
  // Throws RuntimeUnavailableError.
  plugin::RuntimePlugin& plugin_for(const std::string& name, const std::string& requested);
  // Runs one command in a fresh sandbox (the warm pool's check that it works).
  void warm_up(sandbox::Sandbox& sandbox);
  // Gets the call's credentials into request, then fills call.result, its setup_us (also when
  // it throws) and call's sandbox tally.
  // The egress proxy applies `policy` to the requests it reads, and what it reports is audited
  // into the store and call.api_calls.
  void run_in_sandbox(Session& session, plugin::RuntimePlugin& runtime,
                      plugin::ExecuteRequest& request, plugin::ProgressSink& progress,
                      sandbox::OutputSink* output, const api_policy::CallApiPolicy& policy,
                      CallResult& call);

  // Fetches /app/out after a call and keeps its files in call.files; what cannot come back
  // becomes a warning of the result (session_files.cpp).
  void collect_out_files(Session& session, CallResult& call) noexcept;
  // The open session `session_id`, when `owner` may see it (call_file); else SessionNotFoundError.
  std::shared_ptr<Session> find_owned(const std::string& session_id,
                                      const std::optional<std::string>& owner);

  // Records a run's audited API requests and adds them to call's result.
  void record_api_calls(AuditedRun run, CallResult& call);
  // Ends the egress call of a run that threw and records its API requests (logs a failure).
  void audit_failed_run(sandbox::Sandbox& sandbox, const api_policy::CallApiPolicy& policy,
                        CallResult& call) noexcept;

  SessionManagerOptions options_;
  sandbox::SandboxProvider& provider_;
  sandbox::BaseCache* base_cache_;  // null: the provider's sandboxes bring their own
  plugin_host::PluginRegistry& plugins_;
  CallCredentials& credentials_;
  store::Store& store_;
  plugin::Logger& logger_;
  std::atomic<bool> shutting_down_{false};
  SessionSlotQueue slots_;  // one slot per entry of sessions_
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
  std::unique_ptr<CallFileStore> files_;  // null: options_.call_files_dir is empty
  // Last: its refill thread uses the members above, so it is destroyed (and stopped) first.
  std::unique_ptr<WarmSandboxPool> warm_pool_;
};

}  // namespace kg::session
