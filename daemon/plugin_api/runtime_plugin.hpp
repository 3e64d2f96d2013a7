// The interface a runtime plugin (compiled-go, yaegi) implements. The daemon calls execute()
// from a call thread; calls in one session are serialized, calls of different sessions may run
// in parallel, so a plugin must keep per-call state on the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "credentials_plugin.hpp"
#include "sandbox_handle.hpp"

namespace kg::plugin {

// The caller's input is wrong (bad path, no main, two package names...). The message is shown
// to the caller as it is, so it says what is wrong and how to fix it.
class InvalidInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Phase { setup, build, run };
enum class Mode { wrapped, verbatim };
// What a call does with the program (docs/runtimes.md, "go test and go vet"): run it, run its
// tests (go test -json), or vet it (go vet -json). Only compiled-go tests and vets.
enum class Action { run, test, vet };
enum class Status {
  ok,
  compile_error,
  runtime_error,
  test_failed,   // action test: a test failed (or a package's tests could not run)
  vet_findings,  // action vet: go vet reported something (the result's diagnostics)
  panic,
  timeout,
  oom,
  output_limit,
  killed,
  internal,
};

struct Limits {
  std::uint32_t run_timeout_ms = 60'000;
  // The longest a call could have asked for ([limits] max_run_timeout_ms): named in a timeout's
  // advice.
  std::uint32_t max_run_timeout_ms = 600'000;
  std::uint32_t build_timeout_ms = 300'000;
  std::uint64_t output_limit_bytes = 4 * 1024 * 1024;
  ResourceLimits run;    // the user's program (the call's own limits, within the daemon's)
  ResourceLimits build;  // the toolchain (go build, go mod tidy): the daemon's limits
};

struct ExecuteRequest {
  std::vector<SourceFile> files;  // path -> source, as the caller sent them
  std::vector<std::string> extra_imports;
  Limits limits;
  // Minted by the daemon for this call from the configured credential plugin; nullopt: none.
  // The runtime puts credentials.token on the command that runs the program (never on a
  // build), credentials.env in its environment and credentials.files beside its files.
  std::optional<RunCredentials> credentials;
  // Set by the daemon for the `auto` runtime: a runtime that cannot promise to run this program
  // exactly as compiled Go would (an import it lacks, a construct it gets wrong) does not run it
  // and answers Handoff::declined with the reason; the daemon then runs it with compiled-go.
  bool auto_select = false;
  Action action = Action::run;
};

// Whether a result is final or the daemon should run the program with another runtime.
enum class Handoff {
  none,        // the runtime ran the program (or found the caller's error): the result is final
  declined,    // auto_select: not run; runtime_reason says why
  limitation,  // the runtime itself failed, not the caller's code; runtime_reason says how
};

struct Diagnostic {
  std::string file;
  int line = 0;
  int col = 0;
  std::string message;
  std::string analyzer;  // go vet's analyzer (printf, unreachable, ...); empty for the compiler
};

// One test of action test (a subtest is its own entry, named Parent/Sub), from go test -json.
enum class TestOutcome { pass, fail, skip };
struct TestCase {
  std::string package;  // import path
  std::string name;
  TestOutcome outcome = TestOutcome::fail;
  std::uint64_t elapsed_ms = 0;
  std::string output;  // what the test printed (t.Log, failures), bounded per test
};

// With a decline of auto's first runtime: the part of the program the decline points at,
// verbatim. While a later auto call of the same session still holds that exact text in that
// file, the daemon hands it to the second runtime without asking the first again (a guess that
// is never wrong, declining being always safe: docs/runtimes.md).
struct DeclineEvidence {
  std::string file;  // path as the caller sent it ("main.go", "helper/h.go")
  std::string text;  // the declaration's source, byte for byte
};

struct ExecuteResult {
  Phase phase = Phase::setup;
  Mode mode = Mode::verbatim;
  Status status = Status::internal;
  int exit_code = 0;
  int signal = 0;  // 0: none
  // Microseconds: the daemon reports whole milliseconds from these, and the precise values too.
  std::uint64_t setup_us = 0;
  std::uint64_t build_us = 0;
  std::uint64_t run_us = 0;
  bool tidied = false;
  bool cache_hit = false;
  std::vector<std::string> warnings;
  // What the caller should know that says nothing wrong with the call (which build path ran and
  // why): listed after the warnings in the result's `warnings`, but never making it an error.
  std::vector<std::string> notices;
  std::string stdout_text;
  std::string stderr_text;
  std::vector<Diagnostic> diagnostics;
  // Action test: one entry per test and subtest, in the order they finished.
  std::vector<TestCase> tests;
  std::optional<std::string> result_json;  // the result.json object, raw JSON text
  Handoff handoff = Handoff::none;
  // With auto_select: why this runtime was safe to run the program, or why it handed it off.
  std::string runtime_reason;
  // Whether the program's own code may have run (and acted, with the call's credentials): false
  // only when the runtime knows it stopped before (yaegi: its runner's word before `started`).
  // auto runs a program that started no second time with credentials (docs/security.md).
  bool program_started = false;
  // With handoff declined: what the decline points at, when the runtime can say.
  std::optional<DeclineEvidence> decline_evidence;
};

// Told when a call crosses a phase boundary, for progress notifications. Never throws.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void phase_started(Phase phase, std::string_view detail) noexcept = 0;
};

struct Availability {
  bool available = true;
  std::string reason;  // why not, when not available
};

class RuntimePlugin {
 public:
  virtual ~RuntimePlugin() = default;
  // Asked once after creation; an unavailable plugin is disabled with a log line.
  virtual Availability check_availability() = 0;
  // Throws InvalidInputError for bad input, SandboxError when the sandbox fails; every outcome
  // of the user's program (compile error, crash, timeout) is a result, not an exception.
  virtual ExecuteResult execute(const ExecuteRequest& request, SandboxHandle& sandbox,
                                ProgressSink& progress) = 0;
  // For `auto`, asked of compiled-go before the interpreter runs: why this runtime answers
  // this call sooner than interpreting it would, for sure (compiled-go: its binary cache holds
  // this exact program, a hit of a few milliseconds); nullopt when it cannot say so. Reads
  // nothing of the sandbox but who owns it; never throws.
  virtual std::optional<std::string> answers_sooner_than_interpreting(
      const ExecuteRequest& request, SandboxHandle& sandbox) noexcept {
    (void)request;
    (void)sandbox;
    return std::nullopt;
  }
};

std::string_view to_string(Phase phase) noexcept;
std::string_view to_string(Mode mode) noexcept;
std::string_view to_string(Status status) noexcept;
std::string_view to_string(Action action) noexcept;
std::string_view to_string(TestOutcome outcome) noexcept;

}  // namespace kg::plugin

// Header-only so that each side of the ABI gets the same names without linking each other.
namespace kg::plugin {
inline std::string_view to_string(Phase phase) noexcept {
  switch (phase) {
    case Phase::setup: return "setup";
    case Phase::build: return "build";
    case Phase::run: return "run";
  }
  return "setup";
}
inline std::string_view to_string(Mode mode) noexcept {
  return mode == Mode::wrapped ? "wrapped" : "verbatim";
}
inline std::string_view to_string(Status status) noexcept {
  switch (status) {
    case Status::ok: return "ok";
    case Status::compile_error: return "compile_error";
    case Status::runtime_error: return "runtime_error";
    case Status::test_failed: return "test_failed";
    case Status::vet_findings: return "vet_findings";
    case Status::panic: return "panic";
    case Status::timeout: return "timeout";
    case Status::oom: return "oom";
    case Status::output_limit: return "output_limit";
    case Status::killed: return "killed";
    case Status::internal: return "internal";
  }
  return "internal";
}
inline std::string_view to_string(Action action) noexcept {
  switch (action) {
    case Action::run: return "run";
    case Action::test: return "test";
    case Action::vet: return "vet";
  }
  return "run";
}
inline std::string_view to_string(TestOutcome outcome) noexcept {
  switch (outcome) {
    case TestOutcome::pass: return "pass";
    case TestOutcome::fail: return "fail";
    case TestOutcome::skip: return "skip";
  }
  return "fail";
}
}  // namespace kg::plugin
