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
                      std::vector<std::string>& warnings) {
  if (ran.timed_out) {
    warnings.push_back("the program ran longer than " + std::to_string(spec.timeout_ms) +
                       " ms and was stopped");
  }
  if (ran.oom_killed) {
    warnings.push_back("the program ran out of memory and was killed (limit " +
                       std::to_string(spec.resources.memory_bytes) + " bytes)");
  }
  if (ran.cpu_limit_exceeded) {
    warnings.push_back("the program used more than " + std::to_string(spec.resources.cpu_seconds) +
                       " s of CPU time and was stopped");
  }
  if (ran.stdout_truncated || ran.stderr_truncated) {
    warnings.push_back("output over " + std::to_string(spec.output_limit_bytes) +
                       " bytes per stream was discarded");
  }
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
