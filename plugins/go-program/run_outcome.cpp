#include "run_outcome.hpp"

#include "result_file.hpp"

namespace kg::go_program {

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

}  // namespace kg::go_program

namespace kg::go_program {

void add_run_warnings(const plugin::CommandOutcome& ran, const plugin::CommandSpec& spec,
                      std::uint32_t max_run_timeout_ms, std::vector<std::string>& warnings) {
  if (ran.timed_out) {
    std::string advice;
    if (spec.timeout_ms < max_run_timeout_ms) {
      advice = "ask for a longer limit with timeout_ms (up to " +
               std::to_string(max_run_timeout_ms) + ", the daemon's [limits] max_run_timeout_ms)"
               ", ";
    } else {
      advice = "this is already the longest limit a call may ask for ([limits] "
               "max_run_timeout_ms); ";
    }
    warnings.push_back(
        "the program ran longer than " + std::to_string(spec.timeout_ms) +
        " ms and was stopped: " + advice +
        "stop in time by giving run's ctx a deadline (context.WithTimeout) and checking it in "
        "loops, or do less per call (work in batches and keep progress under /app/persist for "
        "the next call)");
  }
  // What happened, the limit and the key that sets it, and what to do (docs/mcp.md, "What a
  // failed call tells the agent"). A call may have asked for less than the daemon's key.
  if (ran.oom_killed) {
    warnings.push_back(
        "the program ran out of memory and was killed: the sandbox may use " +
        std::to_string(spec.resources.memory_bytes) +
        " bytes ([limits] memory_bytes, or less if the call asked for less), files written "
        "under /app, /tmp and the home included. Hold less at once: stream or page through the "
        "data instead of loading it whole, process it in chunks, or ask for a smaller input "
        "(fewer rows, a LIMIT, a date range); or ask the daemon's operator to raise [limits] "
        "memory_bytes");
  }
  if (ran.cpu_limit_exceeded) {
    warnings.push_back(
        "the program used more than " + std::to_string(spec.resources.cpu_seconds) +
        " s of CPU time (all its threads together; [limits] cpu_seconds, or less if the call "
        "asked for less) and was stopped. Do less work per call: a smaller input, fewer "
        "iterations, or batches with progress kept under /app/persist for the next call; "
        "make sure no loop spins without end; or ask the daemon's operator to raise [limits] "
        "cpu_seconds");
  }
  const auto over_limit = [&](std::string_view stream, std::uint64_t discarded) {
    const bool kept_running = !ran.timed_out && !ran.oom_killed && !ran.cpu_limit_exceeded &&
                              ran.signal == 0;
    warnings.push_back(
        std::string(stream) + " went over the " + std::to_string(spec.output_limit_bytes) +
        "-byte limit per stream: " + std::to_string(discarded) +
        " bytes from its middle were discarded (its head and the end of what was printed are "
        "kept)" +
        (kept_running ? "; the program was not stopped and ran to its end (exit code " +
                            std::to_string(ran.exit_code) + ")"
                      : "") +
        ". Print less (a summary, or return the data as a snippet's value), or write big output "
        "to a file under /app/persist and read back the part you need in the next call");
  };
  if (ran.stdout_truncated) over_limit("stdout", ran.stdout_discarded_bytes);
  if (ran.stderr_truncated) over_limit("stderr", ran.stderr_discarded_bytes);
}

void take_result_file(const plugin::CommandOutcome& ran, plugin::ExecuteResult& result) {
  std::optional<std::string> text;
  if (ran.file_after && ran.file_after->exists) {
    if (ran.file_after->error.empty()) {
      text = ran.file_after->content;
    } else {
      result.warnings.push_back("result.json was not read: " + ran.file_after->error);
    }
  }
  const auto checked = check_result_file(text, result.warnings);
  result.result_json = checked.json;
  // The wrapper recovers a panic into the result; report it as the panic it was.
  if (checked.kind == "panic" && result.status == plugin::Status::runtime_error) {
    result.status = plugin::Status::panic;
  }
}

}  // namespace kg::go_program
