// The messages the Yaegi runner (kode-gopher-yaegi) leaves on stderr for the plugin
// (docs/runtimes.md): lines
//     kode-gopher-yaegi[<token>] <one-line JSON>
// The token is random per call, so a line without it (or with another) is the program's own
// output and stays in the stderr the caller sees. The runner says `started` right before the
// program's first line of code (package initialization) runs; a program may find the token in
// the runner's memory, so from then on only a limitation or internal line is taken from the
// runner (and a program can cause a real one anyway): any other token line after `started` is
// the program's output (docs/security.md). Pure; called from call threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::yaegi {

enum class RunnerEventKind {
  accepted,       // --auto: the static check passed (reason)
  declined,       // --auto: not run (reason); exit code 86
  compile_error,  // not run (diagnostics); exit code 2
  compiled,       // the interpreter compiled the program in elapsed_us
  started,        // the program's own code runs from here on (package initialization, main)
  limitation,     // the interpreter failed, not the program (message); exit code 87
  internal,       // the runner failed (message); exit code 70
};

inline constexpr int kDeclinedExitCode = 86;
inline constexpr int kCompileErrorExitCode = 2;
inline constexpr int kLimitationExitCode = 87;
inline constexpr int kInternalExitCode = 70;

struct RunnerEvent {
  RunnerEventKind kind = RunnerEventKind::internal;
  std::string text;  // reason (accepted, declined) or message (limitation, internal)
  std::vector<plugin::Diagnostic> diagnostics;  // compile_error
  std::uint64_t elapsed_us = 0;                 // compiled
  std::optional<plugin::DeclineEvidence> evidence;  // declined by the static check
  bool unreadable = false;  // an internal event standing for a line that was not a runner event
};

struct RunnerStderr {
  std::string user_stderr;  // stderr without the runner's lines, otherwise byte for byte
  std::vector<RunnerEvent> events;  // in order; none after `started` but limitation, internal
  bool started = false;             // the runner said `started`: the program's code ran
};

// "kode-gopher-yaegi[<token>] ": how each of the runner's lines begins.
std::string runner_line_prefix(std::string_view token);

// Splits stderr into the program's output and the runner's events. Before `started`, a line with
// the token whose JSON cannot be read, or names an unknown event, becomes an internal event
// saying so; after it, every token line but a readable limitation or internal event is program
// output (the runner never writes an unreadable line, so after `started` one is the program's).
RunnerStderr split_runner_stderr(std::string_view stderr_text, std::string_view token);

// The first event of `kind`, or nullptr.
const RunnerEvent* find_event(const RunnerStderr& split, RunnerEventKind kind);

}  // namespace kg::yaegi
