// yaegi: the runtime plugin that runs the caller's program with the Yaegi interpreter inside the
// same sandbox compiled-go uses, through the runner kode-gopher-yaegi (sandbox/yaegi-runner: the
// pinned, patched Yaegi with symbol tables for the standard library and the curated packages).
// No go build: a call is one command, so it answers in milliseconds where a build takes a
// fraction of a second to seconds.
//
// Config keys ([yaegi] in kode-gopher.ini): none. The runner's host path is [sandbox]
// yaegi_runner_binary (default: the installed one); without a runner the plugin disables
// itself. Limits come from [limits] like compiled-go's: run_timeout_ms bounds the whole
// interpretation (parse, compile and run), output_bytes each stream.
// Example:
//   [runtime]
//   default = auto
//
// Flow of one call: normalize the files exactly as compiled-go does (program_normalizer: a
// snippet gets the same kg_wrapper.go, so result.json comes out the same), replace /app with the
// tree and the lockfile's go.mod/go.sum, then run
//     KG_YAEGI_TOKEN=<random hex> kode-gopher-yaegi [--auto] /app
// reading /app/.kode-gopher/result.json in the same round trip: two sandbox requests. The
// runner is a prestarted command (`kode-gopher-yaegi --call-on-stdin`, docs/sandbox-api.md
// "Prestarted commands"): the sandbox started it after the previous Yaegi call, or
// kode-gopher-yaegi-cloud when that call imported a curated package, and this call's
// environment and arguments reach it on its stdin. The
// runner's token-marked stderr lines (runner_events.hpp) say what happened; yaegi_run_result.cpp
// maps them onto the result. With ExecuteRequest::auto_select the runner first checks the
// program statically and declines what Yaegi would get wrong; the daemon then compiles it.
#include <chrono>
#include <cstdio>
#include <random>

#include "host_services.hpp"
#include "plugin_abi.hpp"
#include "program_normalizer.hpp"
#include "result_file.hpp"
#include "runner_command.hpp"
#include "runner_events.hpp"
#include "runtime_plugin.hpp"
#include "workdir_files.hpp"
#include "yaegi_run_result.hpp"

namespace kg::yaegi {
namespace {

using Clock = std::chrono::steady_clock;

std::string new_token() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buffer[33];
  std::snprintf(buffer, sizeof buffer, "%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buffer;
}

class YaegiRuntime final : public plugin::RuntimePlugin {
 public:
  explicit YaegiRuntime(plugin::HostServices& host) : host_(host) {}

  plugin::Availability check_availability() override {
    if (host_.toolchain().yaegi_runner.empty()) {
      return {false, "this install has no Yaegi runner (kode-gopher-yaegi); build "
                     "sandbox/yaegi-runner or set [sandbox] yaegi_runner_binary"};
    }
    if (host_.toolchain().lockfile_go_mod.empty()) {
      return {false, "the curated lockfile's go.mod was not found"};
    }
    return {};
  }

  plugin::ExecuteResult execute(const plugin::ExecuteRequest& request,
                                plugin::SandboxHandle& sandbox,
                                plugin::ProgressSink& progress) override {
    // Test and vet run the go command, which an interpreter does not have (docs/runtimes.md).
    if (request.action != plugin::Action::run) {
      const std::string action(plugin::to_string(request.action));
      throw plugin::InvalidInputError(
          "action " + action + " runs go " + action + ", which the yaegi runtime (an "
          "interpreter, with no go command) cannot: call again with runtime \"compiled-go\" (or "
          "\"auto\", which picks compiled-go for test and vet)");
    }
    const auto program = go_program::normalize_program(request.files, request.extra_imports);
    plugin::ExecuteResult result;
    result.mode = program.mode;
    result.phase = plugin::Phase::setup;
    if (program.user_go_mod) {
      // The runner's packages are the lockfile's, compiled in; it cannot honour other versions.
      if (request.auto_select) {
        result.handoff = plugin::Handoff::declined;
        result.runtime_reason = "the program brings its own go.mod; only the compiler builds "
                                "against other module versions than the curated lockfile's";
        return result;
      }
      throw plugin::InvalidInputError(
          "runtime yaegi runs programs against the curated lockfile's packages only and cannot "
          "use a go.mod of your own; use runtime compiled-go (or auto) for this program");
    }
    sandbox.replace_workdir(go_program::workdir_files(program, host_.toolchain()));
    if (request.credentials && !request.credentials->files.empty()) {
      sandbox.upload_files(request.credentials->files);  // an opt-in (copy_adc_file)
    }

    progress.phase_started(plugin::Phase::run,
                           request.auto_select
                               ? "checking the program for Yaegi, then interpreting it"
                               : "interpreting the program with Yaegi");
    const std::string token = new_token();
    plugin::CommandSpec spec;
    // Prestarted (docs/sandbox-api.md): the sandbox starts the runner after the previous call,
    // so its start and symbol tables are paid before this call; the call (environment with
    // the token, arguments) reaches it on stdin. The command line says which runner binary
    // (runner_command.hpp): the next call that asks for the same one finds it waiting.
    spec.command = runner_command(host_.toolchain().yaegi_runner, program.files);
    spec.prestart_arguments = std::vector<std::string>{};
    if (request.auto_select) spec.prestart_arguments->push_back("--auto");
    spec.prestart_arguments->push_back("/app");
    if (request.credentials) {
      spec.credentials = request.credentials->token;
      spec.env = request.credentials->env;
    }
    spec.env.emplace_back("KG_YAEGI_TOKEN", token);
    spec.timeout_ms = request.limits.run_timeout_ms;
    spec.output_limit_bytes = request.limits.output_limit_bytes;
    spec.resources = request.limits.run;
    spec.read_file_after =
        plugin::FileReadRequest{go_program::kResultPath, go_program::kMaxResultBytes};
    // The program's output streams as it is printed; the runner's own lines (its events, with
    // the call's token) do not.
    spec.stream_output = true;
    spec.stream_skip_prefix = runner_line_prefix(token);
    const auto started = Clock::now();
    const auto ran = sandbox.run_command(spec);
    const auto elapsed_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
    fill_result(YaegiRun{ran, spec, token, request.auto_select, elapsed_us,
                         request.limits.max_run_timeout_ms},
                result);
    return result;
  }

 private:
  plugin::HostServices& host_;
};

plugin::RuntimePlugin* create(plugin::HostServices& host) { return new YaegiRuntime(host); }

constexpr const char* kRuntimeNames[] = {"yaegi"};

// No config keys of its own: the runner's path is [sandbox] yaegi_runner_binary.
constexpr plugin::PluginDescriptor kDescriptor{
    .abi_version = plugin::kAbiVersion,
    .kind = plugin::PluginKind::runtime,
    .name = "yaegi",
    .version = "0.1.0",
    .description = "Interprets the program with Yaegi in the sandbox: milliseconds instead of "
                   "a build, the standard library and the curated packages only, and some "
                   "constructs behave differently",
    .create_runtime = &create,
    .create_credentials = nullptr,
    .runtime_names = kRuntimeNames,
    .runtime_name_count = 1};

}  // namespace
}  // namespace kg::yaegi

KG_EXPORT_PLUGIN(kg::yaegi::kDescriptor)
