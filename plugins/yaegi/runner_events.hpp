// The messages the Yaegi runner (kode-gopher-yaegi) leaves on stderr for the plugin
// (/work/notes/yaegi-contract.md, docs/runtimes.md): lines
//     kode-gopher-yaegi[<token>] <one-line JSON>
// written only while no user code runs. The token is random per call, so a line without it (or
// with another) is the program's own output and stays in the stderr the caller sees. Pure;
// called from call threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::yaegi {

enum class RunnerEventKind {
  accepted,       // --auto: the static check passed (reason)
  declined,       // --auto: not run (reason); exit code 86
  compile_error,  // not run (diagnostics); exit code 2
  compiled,       // the interpreter compiled the program in elapsed_us; the run starts
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
};

struct RunnerStderr {
  std::string user_stderr;  // stderr without the runner's lines, otherwise byte for byte
  std::vector<RunnerEvent> events;  // in order
};

// Splits stderr into the program's output and the runner's events. A line with the token whose
// JSON cannot be read, or names an unknown event, becomes an internal event saying so.
RunnerStderr split_runner_stderr(std::string_view stderr_text, std::string_view token);

// The first event of `kind`, or nullptr.
const RunnerEvent* find_event(const RunnerStderr& split, RunnerEventKind kind);

}  // namespace kg::yaegi
