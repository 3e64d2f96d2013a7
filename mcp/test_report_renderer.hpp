// The text of an action test result's `tests` (docs/mcp.md, "go test and go vet"), for
// render_execute_result: totals on one line, then the failed tests with their output, the
// skipped ones with their reason, and the passed ones by name only, so an agent reads what
// broke first and the rest costs a line or two. Package names appear only when the tests
// span several packages. A pure function; any thread.
//
//   tests: 2 passed, 2 failed, 1 skipped
//   ── failed tests ──
//   FAIL TestFail (0ms)
//       main_test.go:11: got 2, want 3
//   ── skipped tests ──
//   SKIP TestSkip: main_test.go:12: not today
//   ── passed tests ──
//   TestAdd, TestSub/one
#pragma once

#include <string>

#include "daemon_api/execute_result.hpp"

namespace kg::cli {

// Empty when there are no cases.
std::string render_test_report(const wire::daemon_api::TestReport& tests);

}  // namespace kg::cli
