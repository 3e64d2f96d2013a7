#include "test_report_renderer.hpp"

#include <set>
#include <string_view>


namespace kg::cli {
namespace {

// Passed names past this many are counted, not listed.
constexpr std::size_t kPassedNamesShown = 40;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && text[start] == ' ') ++start;
  return text.substr(start);
}

}  // namespace

std::string render_test_report(const wire::daemon_api::TestReport& tests) {
  if (tests.cases.empty()) return {};
  std::set<std::string> packages;
  for (const auto& test : tests.cases) packages.insert(test.package);
  const bool name_packages = packages.size() > 1;
  const auto test_name = [&](const wire::daemon_api::TestCaseEntry& test) {
    return name_packages ? test.package + " " + test.name : test.name;
  };

  std::string out = "tests: " + std::to_string(tests.passed) + " passed, " +
                    std::to_string(tests.failed) + " failed, " + std::to_string(tests.skipped) +
                    " skipped\n";
  std::string failed, skipped, passed;
  std::size_t passed_listed = 0, passed_more = 0;
  for (const auto& test : tests.cases) {
    if (test.outcome == "fail") {
      failed += "FAIL " + test_name(test) + " (" + std::to_string(test.elapsed_ms) + "ms)\n";
      failed += test.output;
      if (!test.output.empty() && test.output.back() != '\n') failed += '\n';
    } else if (test.outcome == "skip") {
      const std::string reason = trimmed(test.output);
      skipped += "SKIP " + test_name(test) + (reason.empty() ? "" : ": " + reason) + '\n';
    } else if (passed_listed < kPassedNamesShown) {
      passed += (passed.empty() ? "" : ", ") + test_name(test);
      ++passed_listed;
    } else {
      ++passed_more;
    }
  }
  if (passed_more != 0) passed += " and " + std::to_string(passed_more) + " more";
  if (!failed.empty()) out += "── failed tests ──\n" + failed;
  if (!skipped.empty()) out += "── skipped tests ──\n" + skipped;
  if (!passed.empty()) out += "── passed tests ──\n" + passed + '\n';
  return out;
}

}  // namespace kg::cli
