#include "tool_descriptions.hpp"

#include <cstdint>

#include "curated_package_list.hpp"

namespace kg::mcp {
namespace {

// "60 s", or "1500 ms" when not whole seconds.
std::string duration_text(std::uint64_t ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// "4 MiB", "64 KiB", or "1500 bytes".
std::string size_text(std::uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes != 0 && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// The limits the description states: the daemon's own ([limits], docs/configuration.md) when
// it sent them, else the defaults, each marked as one the operator may have changed.
struct StatedLimits {
  std::string run;         // "60 s on this daemon" | "60 s unless the operator set another"
  std::string build;       // "300 s" | "300 s by default"
  std::string max_ms;      // "600000 ms" | "600000 ms unless the operator set another"
  std::string output;      // "4 MiB" | "4 MiB ... by default"
  std::string run_ms;      // "60000" | "60000 unless the operator set another"
};

StatedLimits stated_limits(const std::optional<OfferedRuntimes>& offered) {
  if (offered && offered->limits) {
    const auto& l = *offered->limits;
    return {duration_text(l.run_timeout_ms) + " on this daemon", duration_text(l.build_timeout_ms),
            std::to_string(l.max_run_timeout_ms) + " ms on this daemon",
            size_text(l.output_bytes) + " of stdout or stderr",
            std::to_string(l.run_timeout_ms) + " on this daemon"};
  }
  // [limits]' defaults (docs/configuration.md); mcp/ does not link config/, so a unit test
  // (tests/unit/cli/test_tool_description_limits.cpp) holds these to config's.
  const wire::daemon_api::CallLimits defaults{60'000, 600'000, 300'000, 4ull << 20};
  const std::string caveat = " unless the operator set another";
  return {duration_text(defaults.run_timeout_ms) + caveat,
          duration_text(defaults.build_timeout_ms) + " by default",
          std::to_string(defaults.max_run_timeout_ms) + " ms" + caveat,
          size_text(defaults.output_bytes) + " of stdout or stderr by default",
          std::to_string(defaults.run_timeout_ms) + caveat};
}

}  // namespace

std::string curated_package_bullets() {
  std::string bullets;
  for (const std::string_view package : kCuratedPackages) {
    bullets += "  - ";
    bullets += package;
    bullets += '\n';
  }
  return bullets;
}

std::string server_instructions() {
  return "kode-gopher runs Go programs in a sandbox against the real Google Cloud and Kubernetes "
         "Go client libraries and returns one structured result per run. Write the whole task "
         "(many API calls, loops, filtering) as one Go snippet and run it with execute_go_code; "
         "check unfamiliar APIs with lookup_package_docs first, and gcp_auth_status to see which "
         "Google credentials programs get. Calls of one connection share one sandbox session and "
         "run one at a time.";
}

std::string runtime_parameter_description(const std::optional<OfferedRuntimes>& offered) {
  if (!offered) {
    return "A runtime name the daemon's plugins offer, or auto (the daemon could not be asked "
           "which when the tools were listed; `kode-gopher plugins` lists them, and a name it "
           "does not offer is refused with the list). Leave out for the daemon's default.";
  }
  std::string text;
  for (const auto& [name, what] : offered->descriptions) {
    text += (text.empty() ? "" : "; ") + name + (what.empty() ? "" : ": " + what);
  }
  text += ". Leave out for the daemon's default";
  if (!offered->default_name.empty()) text += " (" + offered->default_name + ")";
  return text + ".";
}

std::string timeout_parameter_description(const std::optional<OfferedRuntimes>& offered) {
  const StatedLimits limits = stated_limits(offered);
  return "This call's run-phase wall-clock limit in milliseconds, for a program that needs "
         "longer (or should stop sooner) than the default (" + limits.run_ms + "). At most the "
         "daemon's [limits] max_run_timeout_ms (" + limits.max_ms + "); more is refused with a "
         "message naming the maximum. The build has its own limit (" + limits.build + ").";
}

std::string execute_go_code_description(const std::optional<OfferedRuntimes>& offered) {
  const StatedLimits limits = stated_limits(offered);
  return "Run Go code in a sandbox and get one structured result. Send exactly one of `code` "
         "(the source of main.go) or `files` (path -> source: files without '/' form the entry "
         "package; files in a subdirectory form helper packages, imported as "
         "\"kode_gopher_user/<dir>\").\n"
         "\n"
         "Two shapes of program:\n"
         "1. Snippet (preferred): any package name other than main, with exactly one\n"
         "     func run(ctx context.Context) (any, error)\n"
         "   kode-gopher supplies main, calls run, and returns its value JSON-encoded as "
         "result.value; a returned error becomes result.kind \"error\", a panic \"panic\". "
         "Example:\n"
         "     package snippet\n"
         "     import \"context\"\n"
         "     func run(ctx context.Context) (any, error) {\n"
         "         return map[string]int{\"answer\": 42}, nil\n"
         "     }\n"
         "2. Program: package main with func main; its stdout, stderr and exit code come back.\n"
         "\n"
         "Curated packages (prewarmed, pinned versions, no go.mod needed; use "
         "lookup_package_docs to read their API):\n" +
         curated_package_bullets() +
         "The standard library always works. Another third-party import makes kode-gopher run "
         "`go mod tidy` once through the Go module proxy (slower; tidied: true). A go.mod among "
         "`files` replaces the curated lockfile. An identical resubmission comes from the binary "
         "cache (cache_hit: true). `extra_imports` adds blank "
         "imports (e.g. to register a driver) without editing the code. `runtime` picks the "
         "runtime" +
         (offered ? " (" + join_names(offered->callable) + ")" : std::string()) + ": " +
         runtime_parameter_description(offered) + "\n"
         "\n"
         "`action` test runs the tests among the files sent (`*_test.go`, every package) with "
         "go test instead of running the program: the result's `tests` has one entry per test "
         "and subtest (package, name, outcome pass/fail/skip, elapsed_ms, output), failures "
         "first in the text, status test_failed when one failed. `action` vet runs go vet: its "
         "findings come back as diagnostics naming the analyzer, status vet_findings. Both need "
         "the go command (compiled-go; auto gives them to it).\n"
         "\n"
         "The result (structuredContent; the text block shows the same for reading): status "
         "(ok, compile_error, runtime_error, test_failed, vet_findings, panic, timeout, oom, "
         "output_limit, killed, internal), phase (setup, build, run), mode (wrapped for a snippet, verbatim for a "
         "program), exit_code, stdout and stderr (head and tail 8 KiB each), diagnostics "
         "(compiler errors: file, line, col, message), result ({kind: ok, value} | {kind: "
         "error, message} | {kind: panic, message, stack} | {kind: marshal_error, type, "
         "message}), timings in ms (duration, queue, setup, build, run), and is_error.\n"
         "\n"
         "The sandbox: each call starts in a fresh working directory (/app) holding only the "
         "files sent; /app/persist is the session's scratch folder, kept across the calls of "
         "one connection (which share one sandbox and run one at a time). Files the program "
         "writes under /app/out (it exists at the start; at most 64 files, 8 MiB each, 32 MiB "
         "in all; no links) come back after the call as the result's `files` and as "
         "resource_link items to read with resources/read, instead of printing them. With a "
         "progressToken, the program's stdout and stderr arrive as progress notifications while "
         "it runs (at most 64 KiB per call). In protocol 2025-11-25 a long call can run as a "
         "task (tools/call with `task`), to be polled, cancelled and fetched later. The run "
         "stops at a wall-clock limit (" + limits.run + "; the build has its own, " +
         limits.build + "): status timeout, and run's ctx has no deadline of its own, so derive "
         "one. `timeout_ms` asks for another run limit for one call, up to the daemon's maximum "
         "(" + limits.max_ms + "). "
         "Memory, processes and output are limited too (oom; output_limit after " +
         limits.output + "). Network: when the daemon has a credential plugin, a "
         "local sandbox reaches only the allowed Google API hosts (by default *.googleapis.com "
         "and accounts.google.com on 443) through the daemon's egress proxy, which Go's clients "
         "use on their own; other hosts are refused (HTTP 403, and a warning naming them); "
         "without one, no network (on Kubernetes: HTTPS to public addresses). An API policy "
         "(the operator's, narrowed by this tool's api_policy argument) may make Google API "
         "access read-only or limit it to listed projects and buckets: a refused request fails "
         "in the program with HTTP 403 or gRPC PERMISSION_DENIED naming the rule, and the "
         "result's api_calls lists the API requests made. cgo is not available. "
         "gcp_auth_status says which Google identity programs run as.";
}

std::string gcp_auth_status_description() {
  return "Report the Google Cloud credentials that programs run by execute_go_code get: mode "
         "(sealed: programs hold a placeholder token and the daemon adds the real one to their "
         "Google API requests; forwarded: the user's own credentials; access-token: a "
         "short-lived token only; "
         "workload: the cluster's workload identity; none: no credentials), and, when known, "
         "credential_type, email, project_id, quota_project_id and token_expiry; sealed or "
         "program_holds: what programs themselves hold and where they can use it; when programs "
         "get no working credentials, problem and login_hint (what the user must do on the "
         "daemon's host). Takes no arguments.";
}

std::string lookup_package_docs_description() {
  return "Show the Go documentation (`go doc`) of a curated package, or of one symbol in it, "
         "exactly as in the versions execute_go_code builds with. `package` is one of:\n" +
         curated_package_bullets() +
         "`symbol` is optional: a function, type, or method such as NewClient, Client, or "
         "Client.Bucket. Without it, docs is a short index of the package (its synopsis and "
         "exported names); ask for one symbol for its full documentation and methods. A name "
         "go doc does not know is an error that suggests the near names. Returns {package, "
         "symbol?, docs}.";
}

}  // namespace kg::mcp
