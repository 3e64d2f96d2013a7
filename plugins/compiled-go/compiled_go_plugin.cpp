// compiled-go: the runtime plugin that builds the caller's program inside the sandbox, as
// `go build` would, and runs the binary there.
//
// Config keys ([compiled-go] in kode-gopher.ini):
//   fast_path = true   build programs on the curated lockfile with kode-gopher-fastbuild (the
//                      compiler per package and the linker once, from data the prewarm computed;
//                      sandbox/fastbuild/README.md), falling back to go build, with a warning,
//                      for anything it does not serve; false: always go build
// Limits come from [limits]: run_timeout_ms (60000), build_timeout_ms (300000), output_bytes
// (4194304).
// Example:
//   [compiled-go]
//   fast_path = false
//   [limits]
//   build_timeout_ms = 120000
//
// Flow of one call: normalize the files (program_normalizer: a snippet gets kg_wrapper.go),
// replace /app with the tree (one tar, one round trip), then either take the binary from the
// host's binary cache (HostServices::binary_cache: same files, lockfile, toolchain and flags) or
// build it against the prewarmed cache (phase build; an import outside the lockfile goes through
// the host's go mod tidy, HostServices::module_tidy), and run it (phase run), reading /app/.kode-gopher/result.json in the same
// round trip. A cache hit is two sandbox requests; a build, three.
#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include <algorithm>
#include <chrono>

#include "build_failure_advice.hpp"
#include "build_output.hpp"
#include "go_tool_actions.hpp"
#include "go_tool_program.hpp"
#include "result_file.hpp"
#include "snippet_wrapper.hpp"
#include "host_services.hpp"
#include "plugin_abi.hpp"
#include "program_normalizer.hpp"
#include "run_outcome.hpp"
#include "runtime_plugin.hpp"
#include "workdir_files.hpp"

namespace kg::compiled_go {
namespace {

using go_program::add_run_warnings;
using go_program::classify_run;
using go_program::elide_middle;
using go_program::kMaxResultBytes;
using go_program::kResultPath;
using go_program::kStreamKeep;
using go_program::normalize_program;
using go_program::NormalizedProgram;
using go_program::parse_diagnostics;
using go_program::strip_sandbox_paths;
using go_program::take_result_file;
using go_program::workdir_files;

using Clock = std::chrono::steady_clock;

constexpr const char* kBinaryPath = "/home/gopher/.kode-gopher/prog";
constexpr const char* kBuildFlags = "-trimpath -buildvcs=false -ldflags='-s -w'";

std::uint64_t us_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// After go mod tidy the build reads modules from two file:// proxies (the curated modules and
// the ones tidy fetched) into a private module cache; go.sum was verified when tidy ran.
constexpr const char* kTidiedEnvironment =
    "GOMODCACHE=/home/gopher/go/pkg/mod GOSUMDB=off "
    "GOPROXY=file:///opt/kode-gopher/gomodcache/cache/download,"
    "file:///opt/kode-gopher/gomodcache-extra/cache/download ";

enum class ModuleSource { lockfile, callers_go_mod, tidied };

// One process: the shell execs go build (which makes the output's folder).
std::string build_command(ModuleSource modules) {
  const std::string environment = modules == ModuleSource::tidied ? kTidiedEnvironment : "";
  return environment + "exec go build " + kBuildFlags + " -o " + kBinaryPath + " .";
}

// kode-gopher-fastbuild's exit statuses besides 0 (built) and 1 (a compile error, reported as go
// build reports it): it did not understand the command line (a sandbox image with an older
// kode-gopher-fastbuild); it declined the program (the reason on stderr after "fallback: "); the
// shell could not find or run it (a sandbox image without it).
constexpr int kFastBuildUsage = 2;
constexpr int kFastBuildDeclined = 3;
constexpr int kShellCannotExecute = 126;
constexpr int kShellNotFound = 127;

// The build's memory limit lets the compiler and linker hold their garbage collector off until
// the heap nears a quarter of it (sandbox/fastbuild/tools.go); 0 (the sandbox's default, not
// known here) leaves them on their defaults.
std::string fast_build_command(const plugin::ToolchainInfo& toolchain,
                               const plugin::ResourceLimits& build_limits) {
  return "exec " + toolchain.fastbuild + " build -data " + toolchain.fastbuild_data + " -go " +
         toolchain.go_version + " -lockfile-digest " + toolchain.lockfile_digest +
         " -memory-limit " + std::to_string(build_limits.memory_bytes) + " -o " + kBinaryPath +
         " .";
}

// Why the fast path declined, from its stderr (the last "fallback: " line).
std::string fast_build_declined_reason(const std::string& output) {
  const auto at = output.rfind("fallback: ");
  if (at == std::string::npos) return "kode-gopher-fastbuild declined it";
  auto reason = output.substr(at + 10);
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == '\r')) reason.pop_back();
  return reason;
}

bool read_fast_path_setting(plugin::HostServices& host) {
  const auto value = host.config_value("compiled-go.fast_path");
  if (!value || *value == "true") return true;
  if (*value == "false") return false;
  throw std::runtime_error("[compiled-go] fast_path must be true or false, got \"" + *value + "\"");
}

// What a built binary depends on: every file that is built, how, and with what.
std::string binary_cache_key(const NormalizedProgram& program,
                             const plugin::ToolchainInfo& toolchain) {
  std::vector<const plugin::SourceFile*> files;
  for (const auto& f : program.files) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](auto* a, auto* b) { return a->path < b->path; });
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update("kode-gopher compiled-go v1\n" + toolchain.go_version + "\n" + kBuildFlags + "\n");
  sha.update(program.user_go_mod ? std::string("user go.mod\n")
                                 : "lockfile " + toolchain.lockfile_digest + "\n");
  for (const auto* f : files) {
    sha.update(f->path + '\0' + std::to_string(f->content.size()) + '\0');
    sha.update(f->content);
  }
  return Poco::DigestEngine::digestToHex(sha.digest());
}

class CompiledGoRuntime final : public plugin::RuntimePlugin {
 public:
  explicit CompiledGoRuntime(plugin::HostServices& host)
      : host_(host), fast_path_(read_fast_path_setting(host)) {}

  plugin::Availability check_availability() override {
    if (host_.toolchain().go_version.empty()) {
      return {false, "no Go toolchain was found on the host"};
    }
    return {};
  }

  std::optional<std::string> answers_sooner_than_interpreting(
      const plugin::ExecuteRequest& request, plugin::SandboxHandle& sandbox) noexcept override {
    try {
      plugin::BinaryCacheService* cache = host_.binary_cache();
      if (cache == nullptr) return std::nullopt;
      const auto program = normalize_program(request.files, request.extra_imports);
      if (!cache->holds_binary(sandbox, binary_cache_key(program, host_.toolchain()))) {
        return std::nullopt;
      }
      return "compiled Go already built this exact program: its binary cache answers in "
             "milliseconds";
    } catch (...) {
      return std::nullopt;  // input the runtimes refuse is refused by the one that runs it
    }
  }

  plugin::ExecuteResult execute(const plugin::ExecuteRequest& request,
                                plugin::SandboxHandle& sandbox,
                                plugin::ProgressSink& progress) override {
    if (request.action != plugin::Action::run) return execute_go_tool(request, sandbox, progress);
    const auto program = normalize_program(request.files, request.extra_imports);
    plugin::ExecuteResult result;
    result.mode = program.mode;
    result.phase = plugin::Phase::setup;
    sandbox.replace_workdir(workdir_files(program, host_.toolchain()));

    result.phase = plugin::Phase::build;
    const std::string key = binary_cache_key(program, host_.toolchain());
    std::string binary = kBinaryPath;
    // The host's binary cache (absent with a provider whose sandboxes cannot receive host folders).
    plugin::BinaryCacheService* cache = host_.binary_cache();
    if (auto cached = cache != nullptr ? cache->cached_binary(sandbox, key) : std::nullopt) {
      binary = *cached;
      result.cache_hit = true;
    } else {
      const auto modules =
          program.user_go_mod ? ModuleSource::callers_go_mod : ModuleSource::lockfile;
      bool built = false;
      if (fast_path_ && modules == ModuleSource::lockfile && !host_.toolchain().fastbuild.empty()) {
        const auto fast = fast_build(request.limits, sandbox, progress, result);
        built = fast == FastBuild::built ||
                (fast == FastBuild::declined &&
                 build(modules, request.limits, sandbox, progress, result));
      } else {
        if (fast_path_ && modules == ModuleSource::callers_go_mod) {
          result.notices.push_back(
              "built with go build, not the fast path: the program brings its own go.mod");
        }
        built = build(modules, request.limits, sandbox, progress, result);
      }
      if (!built && modules == ModuleSource::lockfile && needs_tidy(result.stderr_text)) {
        built = tidy_and_build(program, request.limits, sandbox, progress, result);
      }
      if (!built) return result;
      if (cache != nullptr) cache->store_binary(sandbox, key, kBinaryPath);
    }
    // Credentials files (an opt-in) arrive after the build, so no build ever sees them.
    if (request.credentials && !request.credentials->files.empty()) {
      sandbox.upload_files(request.credentials->files);
    }
    run(binary, request, sandbox, progress, result);
    return result;
  }

 private:
  enum class FastBuild { built, failed, declined };

  // Actions test and vet (go_tool_actions.hpp): the tree as sent, then go test or go vet.
  plugin::ExecuteResult execute_go_tool(const plugin::ExecuteRequest& request,
                                        plugin::SandboxHandle& sandbox,
                                        plugin::ProgressSink& progress) const {
    const auto program =
        go_program::normalize_for_go_tool(request.files, request.extra_imports, request.action);
    plugin::ExecuteResult result;
    result.mode = program.mode;
    result.phase = plugin::Phase::setup;
    sandbox.replace_workdir(workdir_files(program, host_.toolchain()));
    result.phase = plugin::Phase::build;
    GoToolCall call{request, sandbox, progress, {}, kTidiedEnvironment};
    if (host_.module_tidy() != nullptr) {
      call.tidy = [&](plugin::ExecuteResult& filled) {
        return tidy_modules(program, request.limits, sandbox, progress, filled);
      };
    }
    run_go_tool(call, program, result);
    return result;
  }

  // The fast path: the compiler and linker run directly. A compile error is reported exactly as
  // go build reports it; a program it does not serve is declined (a warning says why), and the
  // caller builds it with go build.
  FastBuild fast_build(const plugin::Limits& limits, plugin::SandboxHandle& sandbox,
                       plugin::ProgressSink& progress, plugin::ExecuteResult& result) const {
    progress.phase_started(plugin::Phase::build, "compile and link");
    const auto spec = build_spec(fast_build_command(host_.toolchain(), limits.build), limits);
    const auto started = Clock::now();
    const auto built = sandbox.run_command(spec);
    result.build_us += us_since(started);
    const bool killed = built.oom_killed || built.timed_out || built.cpu_limit_exceeded ||
                        built.signal != 0;
    if (!killed && (built.exit_code == kFastBuildDeclined || built.exit_code == kFastBuildUsage ||
                    built.exit_code == kShellNotFound || built.exit_code == kShellCannotExecute)) {
      const auto reason =
          built.exit_code == kFastBuildDeclined ? fast_build_declined_reason(built.stderr_text)
          : built.exit_code == kFastBuildUsage
              ? "this sandbox's " + host_.toolchain().fastbuild + " is older than the daemon"
              : "this sandbox has no " + host_.toolchain().fastbuild;
      result.notices.push_back("built with go build, not the fast path: " + reason);
      return FastBuild::declined;
    }
    return finish_build(built, spec, result) ? FastBuild::built : FastBuild::failed;
  }

  static plugin::CommandSpec build_spec(std::string command, const plugin::Limits& limits) {
    plugin::CommandSpec spec;
    spec.command = std::move(command);
    spec.clean_state = true;  // what it builds may be cached for every session
    spec.timeout_ms = limits.build_timeout_ms;
    spec.output_limit_bytes = limits.output_limit_bytes;
    spec.resources = limits.build;
    return spec;
  }

  // Returns false (with the result filled in) when the build failed.
  static bool build(ModuleSource modules, const plugin::Limits& limits,
                    plugin::SandboxHandle& sandbox, plugin::ProgressSink& progress,
                    plugin::ExecuteResult& result) {
    progress.phase_started(plugin::Phase::build, "go build");
    const auto started = Clock::now();
    const auto spec = build_spec(build_command(modules), limits);
    const auto built = sandbox.run_command(spec);
    result.build_us += us_since(started);
    return finish_build(built, spec, result);
  }

  // The result of a build command, whichever path ran it; false when it failed.
  static bool finish_build(const plugin::CommandOutcome& built, const plugin::CommandSpec& spec,
                           plugin::ExecuteResult& result) {
    if (built.exit_code == 0) {
      result.status = plugin::Status::ok;
      result.stderr_text.clear();
      result.diagnostics.clear();
      return true;
    }
    result.status = built.oom_killed ? plugin::Status::oom
                    : built.timed_out || built.cpu_limit_exceeded ? plugin::Status::timeout
                                                                  : plugin::Status::compile_error;
    result.exit_code = built.exit_code;
    result.signal = built.signal;
    result.stderr_text = elide_middle(strip_sandbox_paths(built.stderr_text), kStreamKeep);
    result.stdout_text = elide_middle(built.stdout_text, kStreamKeep);
    result.diagnostics = parse_diagnostics(built.stderr_text);
    for (auto& warning : build_failure_warnings(built, spec, result.diagnostics)) {
      result.warnings.push_back(std::move(warning));
    }
    return false;
  }

  // An import outside the lockfile: one go mod tidy (on the host, the only step with network),
  // then one more build with the tidied go.mod and go.sum.
  bool tidy_and_build(const NormalizedProgram& program, const plugin::Limits& limits,
                      plugin::SandboxHandle& sandbox, plugin::ProgressSink& progress,
                      plugin::ExecuteResult& result) const {
    return tidy_modules(program, limits, sandbox, progress, result) &&
           build(ModuleSource::tidied, limits, sandbox, progress, result);
  }

  // go mod tidy on the host, go.mod and go.sum uploaded; false with the result filled in.
  bool tidy_modules(const NormalizedProgram& program, const plugin::Limits& limits,
                    plugin::SandboxHandle& sandbox, plugin::ProgressSink& progress,
                    plugin::ExecuteResult& result) const {
    plugin::ModuleTidyService* tidier = host_.module_tidy();
    if (tidier == nullptr) {
      // The caller's to change (its imports), not a failure of the sandbox.
      throw plugin::InvalidInputError(
          "Imports outside the curated lockfile need go mod tidy, which this daemon's sandbox "
          "provider does not offer (its sandboxes cannot receive the host's module cache, and "
          "have no network): use the curated lockfile's modules, or the local provider");
    }
    progress.phase_started(plugin::Phase::build, "go mod tidy (an import outside the curated lockfile)");
    const auto started = Clock::now();
    const auto tidy = tidier->tidy_module(sandbox, program.files, limits.build_timeout_ms);
    result.build_us += us_since(started);
    result.tidied = true;
    if (!tidy.ok) {
      result.stderr_text = elide_middle(strip_sandbox_paths(tidy.output), kStreamKeep);
      result.diagnostics = parse_diagnostics(tidy.output);
      result.status = plugin::Status::compile_error;
      result.warnings.push_back(tidy_failure_warning(tidy.output));
      return false;
    }
    for (const auto& line : tidy.moved) result.warnings.push_back(line);
    const std::vector<plugin::SourceFile> modules = {{"go.mod", tidy.go_mod}, {"go.sum", tidy.go_sum}};
    sandbox.upload_files(modules);
    return true;
  }

  static void run(const std::string& binary, const plugin::ExecuteRequest& request,
                  plugin::SandboxHandle& sandbox, plugin::ProgressSink& progress,
                  plugin::ExecuteResult& result) {
    const plugin::Limits& limits = request.limits;
    progress.phase_started(plugin::Phase::run, "running the program");
    result.phase = plugin::Phase::run;
    const auto started = Clock::now();
    plugin::CommandSpec spec;
    spec.command = "exec " + binary;
    spec.timeout_ms = limits.run_timeout_ms;
    spec.output_limit_bytes = limits.output_limit_bytes;
    spec.resources = limits.run;
    spec.read_file_after = plugin::FileReadRequest{kResultPath, kMaxResultBytes};
    spec.stream_output = true;  // the program's output, never the build's
    if (request.credentials) {
      spec.credentials = request.credentials->token;
      spec.env = request.credentials->env;
    }
    const auto ran = sandbox.run_command(spec);
    result.run_us = us_since(started);
    result.exit_code = ran.exit_code;
    result.signal = ran.signal;
    result.status = classify_run(ran);
    result.stdout_text = elide_middle(ran.stdout_text, kStreamKeep);
    result.stderr_text = elide_middle(ran.stderr_text, kStreamKeep);
    add_run_warnings(ran, spec, limits.max_run_timeout_ms, result.warnings);
    take_result_file(ran, result);
  }

  plugin::HostServices& host_;
  const bool fast_path_;
};

plugin::RuntimePlugin* create(plugin::HostServices& host) { return new CompiledGoRuntime(host); }

constexpr const char* kRuntimeNames[] = {"compiled-go"};
constexpr plugin::PluginConfigKey kConfigKeys[] = {
    {.name = "fast_path", .type = plugin::ConfigKeyType::boolean, .default_text = "true",
     .help = "true: build programs on the curated lockfile with kode-gopher-fastbuild (the "
             "compiler per package and the linker once; docs/runtimes.md), falling back to go "
             "build with a warning; false: every build is go build."},
};

constexpr plugin::PluginDescriptor kDescriptor{
    .abi_version = plugin::kAbiVersion,
    .kind = plugin::PluginKind::runtime,
    .name = "compiled-go",
    .version = "0.2.0",
    .description = "Builds the program with go build in the sandbox and runs the binary",
    .create_runtime = &create,
    .create_credentials = nullptr,
    .runtime_names = kRuntimeNames,
    .runtime_name_count = 1,
    .config_keys = kConfigKeys,
    .config_key_count = 1};

}  // namespace
}  // namespace kg::compiled_go

KG_EXPORT_PLUGIN(kg::compiled_go::kDescriptor)
