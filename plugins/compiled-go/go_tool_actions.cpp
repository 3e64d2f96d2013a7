#include "go_tool_actions.hpp"

#include <chrono>

#include "build_output.hpp"
#include "go_test_report.hpp"
#include "go_vet_report.hpp"
#include "run_outcome.hpp"

namespace kg::compiled_go {
namespace {

using Clock = std::chrono::steady_clock;
using go_program::elide_middle;
using go_program::kStreamKeep;
using go_program::strip_sandbox_paths;

std::uint64_t us_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

plugin::CommandSpec test_spec(const plugin::ExecuteRequest& request, const std::string& prefix) {
  const plugin::Limits& limits = request.limits;
  plugin::CommandSpec spec;
  // -count=1: a test is run every time, never answered from go test's cache of passed tests.
  spec.command = prefix + "exec go test -json -count=1 -timeout " +
                 std::to_string(limits.run_timeout_ms) + "ms ./...";
  // go test stops a hung test at -timeout; the sandbox's limit is the backstop.
  spec.timeout_ms = limits.build_timeout_ms + limits.run_timeout_ms;
  spec.output_limit_bytes = limits.output_limit_bytes;
  spec.resources = limits.run;
  if (request.credentials) {
    spec.credentials = request.credentials->token;
    spec.env = request.credentials->env;
  }
  return spec;
}

plugin::CommandSpec vet_spec(const plugin::Limits& limits, const std::string& prefix) {
  plugin::CommandSpec spec;
  spec.command = prefix + "exec go vet -json ./...";
  spec.timeout_ms = limits.build_timeout_ms;
  spec.output_limit_bytes = limits.output_limit_bytes;
  spec.resources = limits.build;
  return spec;
}

void note_killed(const plugin::CommandOutcome& ran, const plugin::CommandSpec& spec,
                 const plugin::Limits& limits, plugin::ExecuteResult& result) {
  go_program::add_run_warnings(ran, spec, limits.max_run_timeout_ms, result.warnings);
}

void finish_test(const plugin::CommandOutcome& ran, const plugin::CommandSpec& spec,
                 const plugin::Limits& limits, plugin::ExecuteResult& result) {
  auto report = go_program::read_go_test_events(ran.stdout_text);
  result.exit_code = ran.exit_code;
  result.signal = ran.signal;
  result.tests = std::move(report.tests);
  result.stdout_text = std::move(report.other_output);
  result.stderr_text = elide_middle(strip_sandbox_paths(ran.stderr_text), kStreamKeep);
  result.program_started = true;
  if (report.build_failed || (result.tests.empty() && !report.any_failed && ran.exit_code != 0)) {
    // Compiler messages (build-output events), or the go command's own complaint on stderr.
    const std::string compiler_text = report.build_output + ran.stderr_text;
    result.diagnostics = go_program::parse_diagnostics(compiler_text);
    if (result.stderr_text.empty()) {
      result.stderr_text = elide_middle(strip_sandbox_paths(report.build_output), kStreamKeep);
    }
  }
  const plugin::Status killed = go_program::classify_run(ran);
  if (killed == plugin::Status::oom || killed == plugin::Status::timeout ||
      killed == plugin::Status::killed) {
    result.status = killed;
    result.phase = plugin::Phase::run;
  } else if (report.build_failed || (result.tests.empty() && !report.any_failed &&
                                     ran.exit_code != 0)) {
    result.status = plugin::Status::compile_error;
    result.phase = result.tests.empty() ? plugin::Phase::build : plugin::Phase::run;
  } else if (report.any_failed || ran.exit_code != 0) {
    result.status = plugin::Status::test_failed;
    result.phase = plugin::Phase::run;
  } else {
    result.status = ran.stdout_truncated || ran.stderr_truncated ? plugin::Status::output_limit
                                                                 : plugin::Status::ok;
    result.phase = plugin::Phase::run;
  }
  for (const auto& package : report.failed_packages) {
    result.warnings.push_back("package " + strip_sandbox_paths(package) +
                              " failed outside any test (TestMain, init, a panic or a timeout): "
                              "see stdout and stderr");
  }
  if (report.tests_left_out != 0) {
    result.warnings.push_back(std::to_string(report.tests_left_out) +
                              " passed or skipped tests are not listed (at most " +
                              std::to_string(go_program::kMaxTestCases) +
                              " entries; every failed test is)");
  }
  if (result.tests.empty() && result.status == plugin::Status::ok) {
    result.warnings.push_back(
        "no test ran: go test found no func TestXxx(t *testing.T) in the *_test.go files (a "
        "test's name starts with Test and an upper-case letter or digit)");
  }
  note_killed(ran, spec, limits, result);
}

void finish_vet(const plugin::CommandOutcome& ran, const plugin::CommandSpec& spec,
                const plugin::Limits& limits, plugin::ExecuteResult& result) {
  // go vet -json writes its JSON to stdout (Go 1.26; stderr before), the compiler's words to
  // stderr: both are read.
  auto report = go_program::read_go_vet_output(ran.stdout_text + "\n" + ran.stderr_text);
  result.exit_code = ran.exit_code;
  result.signal = ran.signal;
  result.phase = plugin::Phase::build;
  const plugin::Status killed = go_program::classify_run(ran);
  if (killed == plugin::Status::oom || killed == plugin::Status::timeout ||
      killed == plugin::Status::killed) {
    result.status = killed;
    note_killed(ran, spec, limits, result);
  } else if (ran.exit_code != 0) {
    // The code does not compile (or the go command refused the tree): the compiler's words.
    result.status = plugin::Status::compile_error;
    result.diagnostics = std::move(report.compile_errors);
    result.stderr_text = elide_middle(strip_sandbox_paths(ran.stderr_text), kStreamKeep);
  } else if (!report.findings.empty()) {
    result.status = plugin::Status::vet_findings;
    result.diagnostics = std::move(report.findings);
  } else {
    result.status = plugin::Status::ok;
  }
}

}  // namespace

bool needs_tidy(const std::string& build_output) {
  for (const char* marker : {"cannot find module providing package",
                             "no required module provides package", "missing go.sum entry",
                             "module lookup disabled by GOPROXY=off"}) {
    if (build_output.find(marker) != std::string::npos) return true;
  }
  return false;
}

void run_go_tool(const GoToolCall& call, const go_program::NormalizedProgram& program,
                 plugin::ExecuteResult& result) {
  const bool test = call.request.action == plugin::Action::test;
  const plugin::Limits& limits = call.request.limits;
  if (test && call.request.credentials && !call.request.credentials->files.empty()) {
    call.sandbox.upload_files(call.request.credentials->files);
  }
  std::string prefix;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto spec = test ? test_spec(call.request, prefix) : vet_spec(limits, prefix);
    if (test) {
      call.progress.phase_started(plugin::Phase::run, "go test (builds and runs the tests)");
    } else {
      call.progress.phase_started(plugin::Phase::build, "go vet");
    }
    const auto started = Clock::now();
    const auto ran = call.sandbox.run_command(spec);
    (test ? result.run_us : result.build_us) += us_since(started);
    // An import outside the curated lockfile fails the same way for go test and go vet as for
    // go build: tidy once (on the host) and try again.
    if (attempt == 0 && ran.exit_code != 0 && !program.user_go_mod &&
        needs_tidy(ran.stdout_text + ran.stderr_text)) {
      if (!call.tidy) {
        throw plugin::InvalidInputError(
            "Imports outside the curated lockfile need go mod tidy, which this daemon's sandbox "
            "provider does not offer: use the curated lockfile's modules, or the local provider");
      }
      if (!call.tidy(result)) return;
      prefix = call.tidied_environment;
      continue;
    }
    if (test) {
      finish_test(ran, spec, limits, result);
    } else {
      finish_vet(ran, spec, limits, result);
    }
    return;
  }
}

}  // namespace kg::compiled_go
