// Reads what `go test -json` prints (the test2json event stream, one JSON object a line) into
// one entry per test and subtest, the compiler's messages of packages whose tests did not build,
// and which packages failed without a failing test (a panic in TestMain, a timeout). Lines that
// are not events (a crash of the go command itself) are kept as the report's other output.
// Pure; called from call threads.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::go_program {

// Each test's output keeps its head and tail within this many bytes.
inline constexpr std::size_t kTestOutputKeep = 2 * 1024;
// More tests than this (a table of thousands of subtests) keep only the failed ones past it.
inline constexpr std::size_t kMaxTestCases = 1000;

struct GoTestReport {
  std::vector<plugin::TestCase> tests;  // in the order they finished
  std::size_t tests_left_out = 0;       // passed or skipped tests past kMaxTestCases
  std::string build_output;             // the compiler's text of packages that did not build
  bool build_failed = false;
  // Packages that failed without a failed test among their entries ("pkg: why"), and output
  // that belongs to no test (package-level lines, non-event lines), bounded.
  std::vector<std::string> failed_packages;
  std::string other_output;
  bool any_failed = false;  // a test or a package failed
};

GoTestReport read_go_test_events(std::string_view stdout_text);

}  // namespace kg::go_program
