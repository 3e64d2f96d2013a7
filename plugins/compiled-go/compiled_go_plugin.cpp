// compiled-go: the runtime plugin that builds the caller's program with `go build` inside the
// sandbox and runs the binary there.
//
// Config keys ([compiled-go] in kode-gopher.ini): none yet. Limits come from [limits]:
//   run_timeout_ms (60000), build_timeout_ms (300000), output_bytes (4194304).
// Example:
//   [limits]
//   build_timeout_ms = 120000
//
// Flow of one call: normalize the files (program_normalizer), reset /app, upload the tree as one
// tar, `go build` against the prewarmed cache (phase build), run the binary (phase run), read
// /app/.kode-gopher/result.json if the program wrote one.
#include <chrono>

#include "build_output.hpp"
#include "host_services.hpp"
#include "plugin_abi.hpp"
#include "program_normalizer.hpp"
#include "run_outcome.hpp"
#include "runtime_plugin.hpp"

namespace kg::compiled_go {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kBinaryPath = "/home/gopher/.kode-gopher/prog";
constexpr const char* kBuildCommand =
    "mkdir -p /home/gopher/.kode-gopher && "
    "exec go build -trimpath -buildvcs=false -ldflags='-s -w' -o /home/gopher/.kode-gopher/prog .";
constexpr const char* kResultPath = ".kode-gopher/result.json";
constexpr std::uint64_t kMaxResultBytes = 256 * 1024;
constexpr std::size_t kStreamKeep = 8 * 1024;  // head and tail of each stream in a result

std::uint64_t ms_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

class CompiledGoRuntime final : public plugin::RuntimePlugin {
 public:
  explicit CompiledGoRuntime(plugin::HostServices& host) : host_(host) {}

  plugin::Availability check_availability() override {
    if (host_.toolchain().go_version.empty()) {
      return {false, "no Go toolchain was found on the host"};
    }
    return {};
  }

  plugin::ExecuteResult execute(const plugin::ExecuteRequest& request,
                                plugin::SandboxHandle& sandbox,
                                plugin::ProgressSink& progress) override {
    const auto program = normalize_program(request.files, {host_.toolchain().go_version});
    plugin::ExecuteResult result;
    result.mode = program.mode;
    result.phase = plugin::Phase::setup;

    sandbox.reset_workdir();
    sandbox.upload_files(program.files);

    progress.phase_started(plugin::Phase::build, "go build");
    result.phase = plugin::Phase::build;
    const auto build_started = Clock::now();
    plugin::CommandSpec build;
    build.command = kBuildCommand;
    build.timeout_ms = request.limits.build_timeout_ms;
    build.output_limit_bytes = request.limits.output_limit_bytes;
    const auto built = sandbox.run_command(build);
    result.build_ms = ms_since(build_started);
    if (built.exit_code != 0) {
      result.status = built.timed_out ? plugin::Status::timeout : plugin::Status::compile_error;
      result.exit_code = built.exit_code;
      result.signal = built.signal;
      result.stderr_text = elide_middle(strip_sandbox_paths(built.stderr_text), kStreamKeep);
      result.stdout_text = elide_middle(built.stdout_text, kStreamKeep);
      result.diagnostics = parse_diagnostics(built.stderr_text);
      if (built.timed_out) {
        result.warnings.push_back("the build took longer than " +
                                  std::to_string(build.timeout_ms) + " ms and was stopped");
      }
      return result;
    }

    progress.phase_started(plugin::Phase::run, "running the program");
    result.phase = plugin::Phase::run;
    const auto run_started = Clock::now();
    plugin::CommandSpec run;
    run.command = std::string("exec ") + kBinaryPath;
    run.timeout_ms = request.limits.run_timeout_ms;
    run.output_limit_bytes = request.limits.output_limit_bytes;
    const auto ran = sandbox.run_command(run);
    result.run_ms = ms_since(run_started);
    result.exit_code = ran.exit_code;
    result.signal = ran.signal;
    result.status = classify_run(ran);
    result.stdout_text = elide_middle(ran.stdout_text, kStreamKeep);
    result.stderr_text = elide_middle(ran.stderr_text, kStreamKeep);
    if (ran.timed_out) {
      result.warnings.push_back("the program ran longer than " + std::to_string(run.timeout_ms) +
                                " ms and was stopped");
    }
    if (ran.stdout_truncated || ran.stderr_truncated) {
      result.warnings.push_back("output over " + std::to_string(run.output_limit_bytes) +
                                " bytes per stream was discarded");
    }
    read_result_file(sandbox, result);
    return result;
  }

 private:
  // A program may leave a structured result at /app/.kode-gopher/result.json.
  static void read_result_file(plugin::SandboxHandle& sandbox, plugin::ExecuteResult& result) {
    try {
      result.result_json = sandbox.read_file(kResultPath, kMaxResultBytes);
    } catch (const plugin::SandboxError& e) {
      result.warnings.push_back(std::string("result.json was not read: ") + e.what());
    }
  }

  plugin::HostServices& host_;
};

plugin::RuntimePlugin* create(plugin::HostServices& host) { return new CompiledGoRuntime(host); }

constexpr plugin::PluginDescriptor kDescriptor{
    plugin::kAbiVersion, plugin::PluginKind::runtime, "compiled-go", "0.1.0",
    "Builds the program with go build in the sandbox and runs the binary", &create, nullptr};

}  // namespace
}  // namespace kg::compiled_go

KG_EXPORT_PLUGIN(kg::compiled_go::kDescriptor)
