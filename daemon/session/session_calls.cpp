// SessionManager: running calls (in a session, or one-shot in a session of their own) and
// package docs.
#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include <algorithm>
#include <chrono>

#include "call_limits.hpp"
#include "error_chain.hpp"
#include "sandbox_provider.hpp"
#include "managed_session.hpp"
#include "package_docs_lookup.hpp"
#include "sealed_credentials.hpp"
#include "session_errors.hpp"
#include "session_manager.hpp"

namespace kg::session {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t us_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

class NullProgress final : public plugin::ProgressSink {
 public:
  void phase_started(plugin::Phase, std::string_view) noexcept override {}
};

// Passes progress on and notes whether the program's run began: a credentialed run that began
// is never retried, so a program that acts as the user never runs twice for one call.
class RunStartWatch final : public plugin::ProgressSink {
 public:
  explicit RunStartWatch(plugin::ProgressSink& next) : next_(next) {}
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override {
    if (phase == plugin::Phase::run) run_started = true;
    next_.phase_started(phase, detail);
  }
  bool run_started = false;

 private:
  plugin::ProgressSink& next_;
};

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

// A policy that refuses requests on their content holds only where the egress proxy reads every
// Google API request a program can make (local sandboxes with network = allowlist, Kubernetes
// sandboxes with [kubernetes] egress_proxy_address; whatever the credential mode): anywhere else
// the call fails before it runs, never unchecked.
void check_policy_enforceable(const api_policy::CallApiPolicy& policy,
                              const sandbox::Sandbox& sandbox) {
  if (!policy.effective.restricts() || sandbox.reads_api_requests()) return;
  throw plugin::InvalidInputError(
      "The API policy (read-only, project or bucket allowlists: the daemon's [api_policy] and the "
      "call's api_policy) holds only where kode-gopher's egress proxy reads a program's Google "
      "API requests: local sandboxes with [sandbox] network = allowlist, Kubernetes sandboxes "
      "with [kubernetes] egress_proxy_address (docs/api-policy.md). This call's sandbox has no "
      "such proxy, so the call was not run. Run without api_policy (a daemon [api_policy] "
      "applies to every call), or use network = allowlist");
}

}  // namespace

void SessionManager::record_api_calls(AuditedRun run, CallResult& call) {
  // Recorded before the result goes out: the audit must not depend on the caller reading it.
  store_.record_api_calls(call.call_id, run.records, run.dropped_by_proxy);
  for (auto& warning : run.warnings) call.result.warnings.push_back(std::move(warning));
  add_to_result(run, call.api_calls, call.api_call_totals);
}

void SessionManager::audit_failed_run(sandbox::Sandbox& sandbox,
                                      const api_policy::CallApiPolicy& policy,
                                      CallResult& call) noexcept {
  // A run that failed, was cancelled or lost its sandbox may have made API requests already:
  // they are recorded all the same (the call's error answer carries no api_calls).
  try {
    const auto report = sandbox.end_egress_call();
    store_.record_egress_refusals(call.call_id, report.refusal_counts);
    const auto run = audit_egress_report(report, policy, call.call_id, call.session_id);
    store_.record_api_calls(call.call_id, run.records, run.dropped_by_proxy);
  } catch (const std::exception& e) {
    logger_.log(plugin::LogLevel::error, "Failed to record the API requests of call " +
                                             std::to_string(call.call_id) + ": " +
                                             describe_error_chain(e));
  }
}

std::string SessionManager::package_docs(const std::string& session_id,
                                        const std::string& package, const std::string& symbol) {
  const sandbox::PackageDocsLookup lookup(options_.curated_packages, package, symbol);
  auto session = find_open(session_id);
  std::lock_guard call_lock(session->call_mutex);
  if (session->closed) throw SessionClosedError("Session '" + session_id + "' is closed");
  NullProgress progress;
  ensure_sandbox(*session, progress);
  // Through a handle like every command: the sandbox's cgroup limits and OOM count stay right.
  const auto handle = session->sandbox->call_handle({.owner = session->record.owner});
  return lookup.docs(handle->run_command(lookup.command()));
}

std::optional<std::string> SessionManager::second_answers_sooner(
    const RuntimePlan& plan, Session& session, const plugin::ExecuteRequest& request,
    plugin::ProgressSink& progress) {
  ensure_sandbox(session, progress);
  const auto handle = session.sandbox->call_handle({.owner = session.record.owner});
  return plugin_for(plan.second, plan.requested).answers_sooner_than_interpreting(request, *handle);
}

void SessionManager::warm_up(sandbox::Sandbox& sandbox) {
  // A started sandbox that runs a command is all a session's first call needs: measured, a
  // fresh sandbox's first build is no slower than its later ones, while a warm-up build here
  // competed with the very call that had just taken the pooled sandbox (bench/README.md).
  plugin::CommandSpec spec;
  spec.command = "exec true";
  spec.timeout_ms = 30'000;
  const auto outcome = sandbox.call_handle({})->run_command(spec);
  if (outcome.exit_code != 0) {
    throw std::runtime_error("the new sandbox's first command exited with " +
                             std::to_string(outcome.exit_code) + ": " +
                             outcome.stderr_text.substr(0, 400));
  }
}

void SessionManager::run_in_sandbox(Session& session, plugin::RuntimePlugin& runtime,
                                    plugin::ExecuteRequest& request,
                                    plugin::ProgressSink& progress, sandbox::OutputSink* output,
                                    const api_policy::CallApiPolicy& policy, CallResult& call) {
  const auto setup_started = Clock::now();
  bool retried = false;
  RunStartWatch watch(progress);
  std::optional<sandbox::SealedToken> sealed;  // mode sealed: the real token, for the proxy
  for (;;) {
    ensure_sandbox(session, progress);
    // Per call, never per sandbox start, and once the sandbox is ready (starting one may wait
    // for the Go build cache): the token is fresh for this run and recorded with this call.
    if (!retried) {
      request.credentials = credentials_.for_call(session.record.id, call.call_id,
                                                  session.record.owner);
      sealed = seal_for_sandbox(request.credentials);
    }
    // A retry's setup includes the attempt that failed.
    const std::uint64_t setup_us = us_since(setup_started);
    call.result.setup_us = setup_us;
    try {
      sandbox::SandboxWait wait;
      const auto handle = session.sandbox->call_handle(
          {.canceller = &session.canceller,
           .wait = &wait,
           .owner = session.record.owner,
           .output = output});
      sandbox::EgressCallSetup egress;
      egress.sealed = sealed;
      if (policy.effective.restricts()) egress.refuse = api_policy::refusal_check(policy);
      check_policy_enforceable(policy, *session.sandbox);
      session.sandbox->begin_egress_call(std::move(egress));
      try {
        call.result = runtime.execute(request, *handle, watch);
      } catch (...) {
        audit_failed_run(*session.sandbox, policy, call);
        throw;
      }
      auto report = session.sandbox->end_egress_call();
      // Connections the egress proxy refused during this call (allowlist), counted for /metrics.
      store_.record_egress_refusals(call.call_id, report.refusal_counts);
      for (auto& refusal : report.refusals) call.result.warnings.push_back(std::move(refusal));
      record_api_calls(audit_egress_report(report, policy, call.call_id, session.record.id), call);
      call.result.setup_us = setup_us;
      // Added: auto's second runtime adds its requests to the first's.
      call.sandbox_us += wait.us;
      call.sandbox_requests += wait.requests;
      return;
    } catch (const plugin::SandboxError&) {
      // A sandbox that died under the call gets one fresh replacement and one retry.
      if (retried || shutting_down_ || session.sandbox->alive()) throw;
      if (request.credentials && watch.run_started) {
        std::throw_with_nested(plugin::SandboxError(
            "The sandbox died while the program ran with Google credentials; it is not run "
            "again, since it may have acted already"));
      }
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
  return run_call(*session, std::move(request), progress, started);
}

CallResult SessionManager::execute_once(const std::string& client, CallRequest request,
                                        plugin::ProgressSink& progress,
                                        std::function<bool()> caller_gone) {
  const auto started = Clock::now();
  const std::string id = new_session_id();
  SlotWait wait;
  wait.caller_gone = std::move(caller_gone);
  wait.on_queued = [&](std::size_t holding, std::size_t ahead) {
    progress.phase_started(plugin::Phase::setup,
                           "waiting for a session slot: " + std::to_string(holding) + " of " +
                               std::to_string(options_.max_sessions) + " open, " +
                               std::to_string(ahead) + " callers ahead; POST /v1/sessions/" + id +
                               "/cancel gives up");
  };
  open_with_id(id, client, request.runtime, wait);
  try {
    auto result = run_call(*find_open(id), std::move(request), progress, started);
    close(id, "one-shot call finished");
    for (auto& file : result.files) file.uri.clear();  // gone with the session
    return result;
  } catch (...) {
    try {
      close(id, "one-shot call failed");
    } catch (const std::exception& e) {
      logger_.log(plugin::LogLevel::error,
                  "Failed to close one-shot session " + id + ": " + describe_error_chain(e));
    }
    throw;
  }
}

CallResult SessionManager::run_call(Session& session, CallRequest request,
                                    plugin::ProgressSink& progress, Clock::time_point started) {
  const std::string& session_id = session.record.id;
  std::lock_guard call_lock(session.call_mutex);
  if (session.closed) {
    throw SessionClosedError("Session '" + session_id + "' was closed while the call waited");
  }
  CallResult call;
  call.session_id = session_id;
  call.action = request.execute.action;
  // Waited for a session slot (one-shot calls) and for the session's previous call.
  call.queue_us = us_since(started);
  const RuntimePlan plan =
      plan_for_action(plan_for(request.runtime, session.record.runtime), request.execute.action);
  auto& first_runtime = plugin_for(plan.first, plan.requested);
  request.execute.auto_select = plan.auto_select;
  request.execute.limits.run_timeout_ms = run_timeout(options_.limits, request.timeout_ms);
  request.execute.limits.max_run_timeout_ms = options_.limits.max_run_timeout_ms;
  request.execute.limits.build_timeout_ms = options_.limits.build_timeout_ms;
  request.execute.limits.output_limit_bytes = output_limit(options_.limits, request.limits);
  request.execute.limits.build = resource_limits(options_.limits);
  request.execute.limits.run = run_limits(options_.limits, request.limits);
  api_policy::CallApiPolicy policy;
  try {
    policy = api_policy::narrow_api_policy(options_.api_policy, request.api_policy);
  } catch (const api_policy::PolicyWideningError& e) {
    throw plugin::InvalidInputError(e.what());
  }
  store::CallStart start;
  start.session_id = session_id;
  start.runtime = plan.requested;  // auto: replaced by the one that ran when the call ends
  start.action = std::string(plugin::to_string(request.execute.action));
  start.code_sha256 = code_sha256(request.execute, start.input_bytes);
  call.call_id = store_.begin_call(start);
  session.canceller.reset();
  session.call_running = true;
  struct RunningFlag {
    std::atomic<bool>& flag;
    ~RunningFlag() { flag = false; }
  } running{session.call_running};

  store::CallOutcome outcome;
  outcome.queue_ms = call.queue_us / 1000;
  try {
    call.runtime = plan.first;
    if (plan.requested == kAutoRuntime && !plan.auto_select) {
      call.runtime_reason = action_runtime_reason(plan, request.execute.action);
    }
    // auto: a program the second runtime answers sooner for sure (compiled-go: its binary cache
    // holds it) goes there without the first (docs/runtimes.md, "When auto picks yaegi").
    std::optional<std::string> sooner =
        plan.auto_select ? second_answers_sooner(plan, session, request.execute, progress)
                         : std::nullopt;
    // auto: the code the first runtime declined on an earlier call of this session is still
    // there, verbatim (docs/runtimes.md, "When auto picks yaegi").
    if (plan.auto_select && !sooner && session.last_decline &&
        still_holds(session.last_decline->evidence, request.execute.files)) {
      sooner = remembered_decline_reason(plan, session.last_decline->reason,
                                         session.last_decline->evidence.file);
    }
    if (sooner) {
      call.runtime = plan.second;
      call.runtime_reason = *sooner;
      request.execute.auto_select = false;
      progress.phase_started(plugin::Phase::setup,
                             "auto: " + plan.second + " runs it (" + *sooner + ")");
      run_in_sandbox(session, plugin_for(call.runtime, plan.requested), request.execute,
                     progress, request.output, policy, call);
    } else {
      run_in_sandbox(session, first_runtime, request.execute, progress, request.output, policy,
                     call);
    }
    if (plan.auto_select && !sooner) {
      const AutoVerdict verdict =
          after_first_runtime(plan, call.result, request.execute.credentials.has_value());
      if (call.result.handoff == plugin::Handoff::declined && call.result.decline_evidence) {
        session.last_decline = {*call.result.decline_evidence, call.result.runtime_reason};
      }
      call.runtime_reason = verdict.reason;
      if (verdict.run_second) {
        progress.phase_started(plugin::Phase::setup,
                               "auto: " + plan.second + " runs it (" + verdict.reason + ")");
        call.runtime = plan.second;
        request.execute.auto_select = false;
        run_in_sandbox(session, plugin_for(call.runtime, plan.requested), request.execute,
                       progress, request.output, policy, call);
      }
      if (verdict.warning) {
        call.result.warnings.insert(call.result.warnings.begin(), *verdict.warning);
      }
    }
  } catch (const std::exception& e) {
    const bool cancelled = session.canceller.cancelled();
    const bool rejected = dynamic_cast<const plugin::InvalidInputError*>(&e) != nullptr;
    const bool no_credentials = dynamic_cast<const CredentialsUnavailableError*>(&e) != nullptr;
    // The daemon's own shutdown stopped it: neither the caller's fault nor a bug.
    const bool interrupted = !cancelled && !rejected && shutting_down_;
    // Input the runtime refused is the caller's to fix; anything else is ours.
    outcome.status = cancelled ? "cancelled" : rejected ? "rejected"
                     : no_credentials ? "credentials_unavailable"
                     : interrupted    ? "interrupted"
                                      : "internal";
    outcome.phase = "setup";
    outcome.error_message = describe_error_chain(e);
    outcome.setup_ms = call.result.setup_us / 1000;
    outcome.total_ms = us_since(started) / 1000;
    if (interrupted) {
      const ShuttingDownError stopped(
          "The daemon is shutting down; the call was stopped before it finished");
      outcome.error_message = std::string(stopped.what()) + ": " + outcome.error_message;
      store_.interrupt_call(call.call_id, outcome);
      std::throw_with_nested(stopped);
    }
    store_.finish_call(call.call_id, outcome);
    if (cancelled) throw CancelledError("The call was cancelled; the session can take the next one");
    throw;
  }
  collect_out_files(session, call);
  call.duration_us = us_since(started);
  const auto& r = call.result;
  outcome.mode = std::string(plugin::to_string(r.mode));
  outcome.phase = std::string(plugin::to_string(r.phase));
  outcome.status = std::string(plugin::to_string(r.status));
  outcome.exit_code = r.exit_code;
  outcome.setup_ms = r.setup_us / 1000;
  outcome.build_ms = r.build_us / 1000;
  outcome.run_ms = r.run_us / 1000;
  outcome.total_ms = call.duration_us / 1000;
  outcome.cache_hit = r.cache_hit;
  outcome.tidied = r.tidied;
  outcome.output_bytes = r.stdout_text.size() + r.stderr_text.size();
  outcome.runtime = call.runtime;
  outcome.runtime_reason = call.runtime_reason;
  store_.finish_call(call.call_id, outcome);
  return call;
}

}  // namespace kg::session
