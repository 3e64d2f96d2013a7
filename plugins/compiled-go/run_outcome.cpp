#include "run_outcome.hpp"

namespace kg::compiled_go {

plugin::Status classify_run(const plugin::CommandOutcome& outcome) {
  if (outcome.oom_killed) return plugin::Status::oom;
  if (outcome.timed_out || outcome.cpu_limit_exceeded) return plugin::Status::timeout;
  if (outcome.signal != 0) return plugin::Status::killed;
  // The Go runtime exits 2 after printing "panic: ..." and the goroutine trace.
  if (outcome.exit_code == 2 && (outcome.stderr_text.starts_with("panic: ") ||
                                 outcome.stderr_text.find("\npanic: ") != std::string::npos)) {
    return plugin::Status::panic;
  }
  if (outcome.exit_code != 0) return plugin::Status::runtime_error;
  if (outcome.stdout_truncated || outcome.stderr_truncated) return plugin::Status::output_limit;
  return plugin::Status::ok;
}

}  // namespace kg::compiled_go
