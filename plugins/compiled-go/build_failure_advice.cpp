#include "build_failure_advice.hpp"

#include <algorithm>

#include "snippet_wrapper.hpp"

namespace kg::compiled_go {

std::vector<std::string> build_failure_warnings(const plugin::CommandOutcome& built,
                                                const plugin::CommandSpec& spec,
                                                const std::vector<plugin::Diagnostic>& diagnostics) {
  std::vector<std::string> warnings;
  if (built.oom_killed) {
    warnings.push_back(
        "the build ran out of memory and was stopped: the compiler and linker may use " +
        std::to_string(spec.resources.memory_bytes) +
        " bytes ([limits] memory_bytes); the program did not run. Build less at once: leave out "
        "packages the program does not use, and big generated tables or literals in the source "
        "(read such data from a file at run time); or ask the daemon's operator to raise "
        "[limits] memory_bytes");
  }
  if (built.timed_out) {
    // A build starts over on every call: clean builds (docs/security.md) begin from the
    // prebuilt base cache alone, so only what it lacks is slow.
    warnings.push_back(
        "the build took longer than " + std::to_string(spec.timeout_ms) +
        " ms ([limits] build_timeout_ms) and was stopped; the program did not run. Every build "
        "starts over, so what makes one slow is code the prebuilt cache does not hold: a go.mod "
        "with other versions than the curated lockfile's, or modules outside it (a big SDK such "
        "as BigQuery or the Kubernetes client then builds from source), or huge generated "
        "literals. Use the curated packages without a go.mod where you can, read big data from "
        "a file at run time, call again if the machine was busy, or ask the daemon's operator "
        "to raise [limits] build_timeout_ms");
  }
  if (built.cpu_limit_exceeded) {
    warnings.push_back(
        "the build used more than " + std::to_string(spec.resources.cpu_seconds) +
        " s of CPU time in one process ([limits] cpu_seconds) and was stopped; the program did "
        "not run. Build less at once (no huge generated literals, only the packages the "
        "program uses), or ask the daemon's operator to raise [limits] cpu_seconds");
  }
  const bool in_wrapper = std::any_of(diagnostics.begin(), diagnostics.end(), [](const auto& d) {
    return d.file == go_program::kWrapperFileName;
  });
  if (in_wrapper) warnings.push_back(go_program::kWrapperDiagnosticAdvice);
  return warnings;
}

std::string tidy_failure_warning(std::string_view tidy_output) {
  // go mod tidy names each package it could not resolve on a line of its own, indented:
  // "\t<import path>: cannot find module providing package …" (or another reason).
  std::vector<std::string> imports;
  std::size_t start = 0;
  while (start < tidy_output.size() && imports.size() < 3) {
    auto end = tidy_output.find('\n', start);
    if (end == std::string_view::npos) end = tidy_output.size();
    const std::string_view line = tidy_output.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with('\t')) continue;
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos) continue;
    const std::string_view path = line.substr(1, colon - 1);
    if (path.empty() || path.find_first_of(" \t\"") != std::string_view::npos) continue;
    const std::string quoted = "\"" + std::string(path) + "\"";
    if (std::find(imports.begin(), imports.end(), quoted) == imports.end()) {
      imports.push_back(quoted);
    }
  }
  std::string named = "the imports outside the curated lockfile";
  if (!imports.empty()) {
    named = imports.size() == 1 ? "the import " : "the imports ";
    for (std::size_t i = 0; i < imports.size(); ++i) {
      named += (i == 0 ? "" : i + 1 == imports.size() ? " and " : ", ") + imports[i];
    }
  }
  return "go mod tidy could not resolve " + named +
         " (the go command's words are in stderr); the program was not built. Check each such "
         "import path for a typo and that its module exists and is public; to use a module at "
         "a version of your choice, send a go.mod (and go.sum) requiring it; or use a curated "
         "package instead (the tool description lists them). If the go command could not reach "
         "the module proxy, the machine running the kode-gopher daemon has no network to it, "
         "which its operator must fix";
}

}  // namespace kg::compiled_go
