// compiled-go's actions test and vet (docs/runtimes.md, "go test and go vet"): instead of
// building and running the program, `go test -json` or `go vet -json` over every package of
// the tree, read into the result's tests and diagnostics.
//
// go test builds the test binaries and runs them in one command, so that command is treated as
// a run: the call's run limits, its credentials (token and files) and the egress of a run, and
// never clean_state (nothing it builds reaches the binary cache). Its time limit is the build's
// plus the run's; -timeout makes go test itself stop a hung test at the run limit and print its
// stack. go vet runs none of the caller's code: it is treated as a build (the daemon's limits,
// no credentials). An import outside the curated lockfile is tidied as a build's is.
#pragma once

#include <functional>
#include <string>

#include "program_normalizer.hpp"
#include "runtime_plugin.hpp"

namespace kg::compiled_go {

struct GoToolCall {
  const plugin::ExecuteRequest& request;
  plugin::SandboxHandle& sandbox;
  plugin::ProgressSink& progress;
  // Runs go mod tidy for an import outside the lockfile; true with go.mod and go.sum uploaded,
  // false with the result filled in. Empty: the provider offers no tidy (the output says so).
  std::function<bool(plugin::ExecuteResult&)> tidy;
  std::string tidied_environment;  // the command's prefix once tidied
};

// After the tree is in /app. Fills phase, status, tests, diagnostics and the streams.
void run_go_tool(const GoToolCall& call, const go_program::NormalizedProgram& program,
                 plugin::ExecuteResult& result);

// go build's words for an import that no module in go.mod provides.
bool needs_tidy(const std::string& build_output);

}  // namespace kg::compiled_go
