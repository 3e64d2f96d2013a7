#include "yaegi_run_result.hpp"

#include <algorithm>

#include "build_output.hpp"
#include "run_outcome.hpp"
#include "runner_events.hpp"
#include "snippet_wrapper.hpp"

namespace kg::yaegi {
namespace {

using go_program::elide_middle;
using go_program::kStreamKeep;

// The runner's own verdict, when its event and its exit code agree (a program may exit 86 or
// 87 itself; only the token-marked event says the runner meant it).
const RunnerEvent* verdict(const RunnerStderr& split, const plugin::CommandOutcome& ran,
                           RunnerEventKind kind, int exit_code) {
  const RunnerEvent* event = find_event(split, kind);
  return event != nullptr && ran.exit_code == exit_code && ran.signal == 0 ? event : nullptr;
}

// Yaegi's words for an import it has no symbols for: `import "<path>" error: unable to find
// source related to: "<path>"`. Returns the path, or empty.
std::string missing_import(const plugin::Diagnostic& d) {
  if (d.message.find("unable to find source related to") == std::string::npos) return {};
  const auto open = d.message.find("import \"");
  if (open == std::string::npos) return {};
  const auto start = open + 8;
  const auto close = d.message.find('"', start);
  return close == std::string::npos ? std::string() : d.message.substr(start, close - start);
}

// What to do about an import the interpreter has no symbols for. A standard library path (no
// dot in its first element) is one of the packages Yaegi cannot interpret at all (unsafe, cgo's
// "C", embed, runtime/…; docs/runtimes.md), not a missing module.
std::string missing_import_advice(const std::string& path) {
  const bool standard = path.substr(0, path.find('/')).find('.') == std::string::npos;
  if (path == "C") {
    return "cgo (import \"C\") is not available under any runtime: programs build with "
           "CGO_ENABLED=0 and sandboxes have no C compiler; use a pure-Go package";
  }
  if (standard) {
    return "\"" + path + "\" is in Go's standard library, but Yaegi cannot interpret it (it works "
           "below the language); run this program with runtime compiled-go, or auto, which picks "
           "compiled-go for it";
  }
  return "Yaegi has only the standard library and the curated packages compiled in, and \"" + path +
         "\" is neither; run this program with runtime compiled-go (or auto), which builds any "
         "module";
}

// A Go runtime fatal error inside the interpreter that the runner could not catch (e.g. Yaegi's
// select deadlocking where compiled Go does not): "fatal error: ..." with Yaegi's own frames in
// the trace. A program's panic (in a goroutine its trace shows Yaegi's frames too) is the
// program's. Returns the fatal error's line, or empty.
std::string interpreter_crash(const std::string& user_stderr) {
  if (user_stderr.find("github.com/traefik/yaegi/interp.") == std::string::npos) return {};
  const auto at =
      user_stderr.starts_with("fatal error: ") ? 0 : user_stderr.find("\nfatal error: ");
  if (at == std::string::npos) return {};
  const auto start = at == 0 ? 0 : at + 1;
  return user_stderr.substr(start, user_stderr.find('\n', start) - start);
}

void set_streams(const plugin::CommandOutcome& ran, const RunnerStderr& split,
                 plugin::ExecuteResult& result) {
  result.stdout_text = elide_middle(ran.stdout_text, kStreamKeep);
  result.stderr_text = elide_middle(split.user_stderr, kStreamKeep);
}

}  // namespace

void fill_result(const YaegiRun& run, plugin::ExecuteResult& result) {
  const plugin::CommandOutcome& ran = run.outcome;
  const RunnerStderr split = split_runner_stderr(ran.stderr_text, run.token);
  result.exit_code = ran.exit_code;
  result.signal = ran.signal;
  set_streams(ran, split, result);
  // Whether the program's code may have run: only the runner's own word before `started` (a
  // decline, a compile error, a failure of its own) says it did not (docs/security.md), and
  // only when stderr was not cut (an output limit small enough to cut `started` off).
  result.program_started = true;
  const bool said_not_started = !split.started && !ran.stderr_truncated;

  if (const auto* declined = verdict(split, ran, RunnerEventKind::declined, kDeclinedExitCode);
      declined != nullptr && run.auto_select) {
    result.phase = plugin::Phase::build;
    result.status = plugin::Status::ok;
    result.build_us = run.elapsed_us;
    result.handoff = plugin::Handoff::declined;
    result.runtime_reason = declined->text;
    result.program_started = !said_not_started;
    if (said_not_started) result.decline_evidence = declined->evidence;
    return;
  }
  if (const auto* failed =
          verdict(split, ran, RunnerEventKind::compile_error, kCompileErrorExitCode)) {
    result.phase = plugin::Phase::build;
    result.status = plugin::Status::compile_error;
    result.build_us = run.elapsed_us;
    result.diagnostics = failed->diagnostics;
    result.program_started = !said_not_started;
    for (const auto& d : result.diagnostics) {
      if (d.file == go_program::kWrapperFileName) {
        result.warnings.push_back(go_program::kWrapperDiagnosticAdvice);
        break;
      }
    }
    for (const auto& d : result.diagnostics) {
      if (const std::string path = missing_import(d); !path.empty()) {
        result.warnings.push_back(missing_import_advice(path));
      }
    }
    return;
  }
  const RunnerEvent* broken = verdict(split, ran, RunnerEventKind::limitation, kLimitationExitCode);
  const bool interpreter_failed = broken != nullptr;
  if (broken == nullptr) broken = verdict(split, ran, RunnerEventKind::internal, kInternalExitCode);
  if (broken != nullptr) {
    result.program_started = !said_not_started;
    result.phase = split.started ? plugin::Phase::run : plugin::Phase::build;
    result.status = plugin::Status::internal;
    result.handoff = plugin::Handoff::limitation;
    result.runtime_reason = (interpreter_failed ? "" : "the Yaegi runner failed: ") + broken->text;
    result.warnings.push_back(
        (interpreter_failed ? "the Yaegi interpreter cannot run this program: "
                            : "the Yaegi runner failed: ") +
        broken->text + "; run it with runtime compiled-go (or auto)");
    result.run_us = run.elapsed_us;
    return;
  }

  const RunnerEvent* accepted = find_event(split, RunnerEventKind::accepted);
  if (run.auto_select && accepted == nullptr) {
    // No verdict at all (the runner died before its check, or wrote nothing): not the
    // program's doing, so auto hands it to the compiler.
    result.phase = plugin::Phase::build;
    result.status = plugin::Status::internal;
    result.handoff = plugin::Handoff::limitation;
    result.runtime_reason = "the Yaegi runner gave no verdict (exit code " +
                            std::to_string(ran.exit_code) + ")";
    result.warnings.push_back(result.runtime_reason);
    return;
  }
  if (accepted != nullptr) result.runtime_reason = accepted->text;

  // The program ran: the same classification as a compiled binary's run, on its own stderr.
  const RunnerEvent* compiled = find_event(split, RunnerEventKind::compiled);
  result.phase = plugin::Phase::run;
  result.build_us = compiled != nullptr ? std::min(compiled->elapsed_us, run.elapsed_us) : 0;
  result.run_us = run.elapsed_us - result.build_us;
  plugin::CommandOutcome program = ran;
  program.stderr_text = split.user_stderr;
  result.status = go_program::classify_run(program);
  go_program::add_run_warnings(ran, run.spec, run.max_run_timeout_ms, result.warnings);
  go_program::take_result_file(ran, result);
  if (const std::string crash = interpreter_crash(split.user_stderr);
      !crash.empty() && result.status != plugin::Status::ok) {
    result.warnings.push_back("the program stopped with a Go runtime error inside the Yaegi "
                              "interpreter's own code (" + crash + "); compiled Go may behave "
                              "differently: run it with runtime compiled-go to be sure");
    if (run.auto_select) {
      result.handoff = plugin::Handoff::limitation;
      result.runtime_reason = "the interpreter crashed: " + crash;
    }
  }
}

}  // namespace kg::yaegi
