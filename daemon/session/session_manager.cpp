#include "session_manager.hpp"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "error_chain.hpp"
#include "local_sandbox_handle.hpp"
#include "local_sandbox_layout.hpp"
#include "session_errors.hpp"

namespace kg::session {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t ms_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

class NullProgress final : public plugin::ProgressSink {
 public:
  void phase_started(plugin::Phase, std::string_view) noexcept override {}
};

// Name, or Type.Method: Go identifiers joined by dots.
bool is_symbol_path(const std::string& symbol) {
  bool at_start = true;
  for (char c : symbol) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (c == '.') {
      if (at_start) return false;
      at_start = true;
    } else if (letter || (digit && !at_start)) {
      at_start = false;
    } else {
      return false;
    }
  }
  return !at_start;
}

std::string new_session_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "s-%016llx", static_cast<unsigned long long>(rng()));
  return buffer;
}

// Identifies a program by content: sorted paths and sources (the request keeps caller order).
std::string code_sha256(const plugin::ExecuteRequest& request, std::uint64_t& bytes) {
  std::vector<const plugin::SourceFile*> files;
  for (const auto& f : request.files) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](auto* a, auto* b) { return a->path < b->path; });
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  bytes = 0;
  for (const auto* f : files) {
    sha.update(f->path);
    sha.update(std::string(1, '\0'));
    sha.update(f->content);
    sha.update(std::string(1, '\0'));
    bytes += f->content.size();
  }
  return Poco::DigestEngine::digestToHex(sha.digest());
}

}  // namespace

struct SessionManager::Session {
  store::SessionRecord record;
  // The running sandbox's bubblewrap pid, for killing it from another thread at shutdown.
  std::atomic<pid_t> sandbox_pid{0};
  std::mutex call_mutex;  // one call at a time; guards sandbox and closed
  std::unique_ptr<sandbox::LocalSandbox> sandbox;
  bool closed = false;
  net::RequestCanceller canceller;  // stops the command of the running call
  std::atomic<bool> call_running{false};
};

SessionManager::SessionManager(SessionManagerOptions options,
                               sandbox::LocalSandboxProvider& provider,
                               sandbox::BaseCache& base_cache,
                               sandbox::BinaryCache* binary_cache,
                               sandbox::ModuleTidier& tidier,
                               plugin_host::PluginRegistry& plugins, store::Store& store,
                               plugin::Logger& logger)
    : options_(std::move(options)),
      provider_(provider),
      base_cache_(base_cache),
      binary_cache_(binary_cache),
      tidier_(tidier),
      plugins_(plugins),
      store_(store),
      logger_(logger) {}

SessionManager::~SessionManager() { close_all("daemon stopped"); }

plugin::RuntimePlugin& SessionManager::runtime_for(const std::string& name,
                                                   std::string& resolved_name) {
  resolved_name = name.empty() ? options_.default_runtime : name;
  if (resolved_name == "auto") resolved_name = "compiled-go";
  if (auto* runtime = plugins_.runtime(resolved_name)) return *runtime;
  const auto* loaded = plugins_.find(resolved_name);
  if (loaded) {
    throw RuntimeUnavailableError("Runtime '" + resolved_name + "' is disabled: " + loaded->reason);
  }
  throw RuntimeUnavailableError("Runtime '" + resolved_name +
                                "' is not loaded; `kode-gopher plugins` lists the loaded ones");
}

store::SessionRecord SessionManager::open(const std::string& client, const std::string& runtime) {
  std::string runtime_name;
  runtime_for(runtime, runtime_name);
  auto session = std::make_shared<Session>();
  session->record.id = new_session_id();
  session->record.client = client.empty() ? "api" : client;
  session->record.provider = options_.provider_name;
  session->record.runtime = runtime_name;
  {
    std::lock_guard lock(mutex_);
    if (sessions_.size() >= options_.max_sessions) {
      throw QueueFullError(std::to_string(sessions_.size()) +
                           " sessions are open, the most this daemon allows (daemon.max_sessions)"
                           "; close one or try again later");
    }
    store_.insert_session(session->record);
    sessions_.emplace(session->record.id, session);
  }
  logger_.log(plugin::LogLevel::info, "Session " + session->record.id + " opened for " +
                                          session->record.client);
  return get(session->record.id);
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
    std::lock_guard call_lock(session->call_mutex);  // waits for a running call to end
    session->closed = true;
    session->sandbox.reset();
    session->sandbox_pid = 0;
    store_.close_session(session_id, "closed", reason);
    logger_.log(plugin::LogLevel::info, "Session " + session_id + " closed (" + reason + ")");
  }
  return get(session_id);
}

std::string SessionManager::package_docs(const std::string& session_id,
                                        const std::string& package, const std::string& symbol) {
  const auto& curated = options_.curated_packages;
  if (std::find(curated.begin(), curated.end(), package) == curated.end()) {
    std::string list;
    for (const auto& p : curated) list += (list.empty() ? "" : ", ") + p;
    throw plugin::InvalidInputError("package \"" + package +
                                    "\" is not a curated package; curated packages: " + list);
  }
  if (!symbol.empty() && !is_symbol_path(symbol)) {
    throw plugin::InvalidInputError("symbol \"" + symbol +
                                    "\" must look like Name or Type.Method (letters, digits, '_')");
  }
  auto session = find_open(session_id);
  std::lock_guard call_lock(session->call_mutex);
  if (session->closed) throw SessionClosedError("Session '" + session_id + "' is closed");
  NullProgress progress;
  ensure_sandbox(*session, progress);
  plugin::CommandSpec spec;
  // Both are checked above to hold only import-path or identifier characters.
  spec.command = "cd " + std::string(sandbox::kSandboxLockfilePath) + " && exec go doc " + package +
                 (symbol.empty() ? "" : " " + symbol);
  spec.timeout_ms = 60'000;
  const auto outcome = session->sandbox->client().run_command(spec);
  if (outcome.exit_code != 0) {
    throw plugin::InvalidInputError("go doc " + package + (symbol.empty() ? "" : " " + symbol) +
                                    ": " + outcome.stderr_text);
  }
  return outcome.stdout_text;
}

bool SessionManager::cancel(const std::string& session_id) {
  auto session = find_open(session_id);
  if (!session->call_running) return false;
  session->canceller.cancel();
  logger_.log(plugin::LogLevel::info, "Session " + session_id + ": call cancelled by the client");
  return true;
}

void SessionManager::close_all(const std::string& reason) noexcept {
  shutting_down_ = true;
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, session] : sessions_) {
      ids.push_back(id);
      // Kill first, so a call in flight fails now instead of holding its session for minutes.
      if (const pid_t pid = session->sandbox_pid.load(); pid > 0) ::kill(pid, SIGKILL);
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
  base_cache_.ensure([&](std::string_view line) {
    progress.phase_started(plugin::Phase::setup, line);
    logger_.log(plugin::LogLevel::info, line);
  });
  if (session.sandbox && !session.sandbox->alive()) {
    logger_.log(plugin::LogLevel::warn, "Sandbox " + session.sandbox->id() + " of session " +
                                            session.record.id + " died; starting a new one");
    session.sandbox.reset();
  }
  if (!session.sandbox) {
    if (shutting_down_) throw plugin::SandboxError("The daemon is shutting down");
    progress.phase_started(plugin::Phase::setup, "starting a sandbox");
    session.sandbox = provider_.open();
    session.sandbox_pid = session.sandbox->pid();
    store_.attach_sandbox(session.record.id, session.sandbox->id());
  }
}

plugin::ExecuteResult SessionManager::run_in_sandbox(Session& session,
                                                     plugin::RuntimePlugin& runtime,
                                                     const plugin::ExecuteRequest& request,
                                                     plugin::ProgressSink& progress,
                                                     std::uint64_t& setup_ms) {
  const auto setup_started = Clock::now();
  bool retried = false;
  for (;;) {
    ensure_sandbox(session, progress);
    setup_ms = ms_since(setup_started);
    try {
      sandbox::LocalSandboxHandle handle(session.sandbox->client(), session.sandbox->dir() + "/home",
                                         binary_cache_, tidier_, &session.canceller, logger_);
      return runtime.execute(request, handle, progress);
    } catch (const plugin::SandboxError&) {
      // A sandbox that died under the call gets one fresh replacement and one retry.
      if (retried || shutting_down_ || session.sandbox->alive()) throw;
      retried = true;
      logger_.log(plugin::LogLevel::warn, "Sandbox of session " + session.record.id +
                                              " died during a call; retrying once");
    }
  }
}

CallResult SessionManager::execute(const std::string& session_id, CallRequest request,
                                   plugin::ProgressSink& progress) {
  const auto started = Clock::now();
  auto session = find_open(session_id);
  std::lock_guard call_lock(session->call_mutex);
  if (session->closed) {
    throw SessionClosedError("Session '" + session_id + "' was closed while the call waited");
  }
  CallResult call;
  call.session_id = session_id;
  call.queue_ms = ms_since(started);
  auto& runtime = runtime_for(request.runtime.empty() ? session->record.runtime : request.runtime,
                              call.runtime);
  request.execute.limits.run_timeout_ms = options_.limits.run_timeout_ms;
  request.execute.limits.build_timeout_ms = options_.limits.build_timeout_ms;
  request.execute.limits.output_limit_bytes = options_.limits.output_bytes;
  if (request.timeout_ms) {
    if (*request.timeout_ms == 0 || *request.timeout_ms > options_.limits.run_timeout_ms) {
      throw plugin::InvalidInputError("timeout_ms must be from 1 to " +
                                      std::to_string(options_.limits.run_timeout_ms) +
                                      " (the daemon's limits.run_timeout_ms)");
    }
    request.execute.limits.run_timeout_ms = *request.timeout_ms;
  }
  store::CallStart start;
  start.session_id = session_id;
  start.runtime = call.runtime;
  start.code_sha256 = code_sha256(request.execute, start.input_bytes);
  call.call_id = store_.begin_call(start);
  session->canceller.reset();
  session->call_running = true;
  struct RunningFlag {
    std::atomic<bool>& flag;
    ~RunningFlag() { flag = false; }
  } running{session->call_running};

  store::CallOutcome outcome;
  outcome.queue_ms = call.queue_ms;
  try {
    call.result = run_in_sandbox(*session, runtime, request.execute, progress, outcome.setup_ms);
  } catch (const std::exception& e) {
    const bool cancelled = session->canceller.cancelled();
    // Input the runtime refused is the caller's to fix; anything else is ours.
    outcome.status = cancelled ? "cancelled"
                     : dynamic_cast<const plugin::InvalidInputError*>(&e) ? "rejected"
                                                                          : "internal";
    outcome.phase = "setup";
    outcome.error_message = describe_error_chain(e);
    outcome.total_ms = ms_since(started);
    store_.finish_call(call.call_id, outcome);
    if (cancelled) throw CancelledError("The call was cancelled; the session can take the next one");
    throw;
  }
  call.duration_ms = ms_since(started);
  call.result.setup_ms = outcome.setup_ms;
  const auto& r = call.result;
  outcome.mode = std::string(plugin::to_string(r.mode));
  outcome.phase = std::string(plugin::to_string(r.phase));
  outcome.status = std::string(plugin::to_string(r.status));
  outcome.exit_code = r.exit_code;
  outcome.build_ms = r.build_ms;
  outcome.run_ms = r.run_ms;
  outcome.total_ms = call.duration_ms;
  outcome.cache_hit = r.cache_hit;
  outcome.tidied = r.tidied;
  outcome.output_bytes = r.stdout_text.size() + r.stderr_text.size();
  store_.finish_call(call.call_id, outcome);
  return call;
}

}  // namespace kg::session
