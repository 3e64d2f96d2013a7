#include "go_test_report.hpp"

#include <map>
#include <utility>

#include "build_output.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"

namespace kg::go_program {
namespace {

// One line of go test -json is small; a line larger than this is not an event we read.
constexpr json::ReadLimits kEventLimits{1024 * 1024, 8, json::InvalidUtf8::repair};

// go test's own framing of a test's output ("=== RUN   TestX", "--- PASS: TestX (0.00s)"):
// the entry already says the same.
bool is_framing_line(std::string_view line) {
  std::size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;
  line.remove_prefix(at);
  for (const char* prefix : {"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS: ",
                             "--- FAIL: ", "--- SKIP: "}) {
    if (line.starts_with(prefix)) return true;
  }
  return false;
}

struct RunningTest {
  std::string output;
  std::size_t order = 0;
};

std::uint64_t elapsed_ms(const rapidjson::Value& event) {
  const rapidjson::Value* elapsed = json::find_member(event, "Elapsed");
  if (elapsed == nullptr || !elapsed->IsNumber()) return 0;
  const double seconds = elapsed->GetDouble();
  return seconds > 0 ? static_cast<std::uint64_t>(seconds * 1000.0 + 0.5) : 0;
}

void append_bounded(std::string& to, std::string_view text) {
  // Twice the keep: elide_middle cuts it to head and tail at the end.
  if (to.size() < 64 * kTestOutputKeep) to.append(text);
}

}  // namespace

GoTestReport read_go_test_events(std::string_view stdout_text) {
  GoTestReport report;
  std::map<std::pair<std::string, std::string>, RunningTest> running;  // (package, test)
  std::map<std::string, bool> package_has_failed_test;
  std::size_t started = 0;
  std::vector<plugin::TestCase> finished;
  std::size_t start = 0;
  while (start < stdout_text.size()) {
    auto end = stdout_text.find('\n', start);
    if (end == std::string_view::npos) end = stdout_text.size();
    const std::string_view line = stdout_text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const auto read = json::read_json(line, kEventLimits);
    const rapidjson::Value& event = read.document;
    if (read.refused || !event.IsObject()) {
      append_bounded(report.other_output, std::string(line) + "\n");
      continue;
    }
    const std::string action = json::string_member(event, "Action");
    const std::string output = json::string_member(event, "Output");
    if (action == "build-output") {
      report.build_output += output;
      continue;
    }
    if (action == "build-fail") {
      report.build_failed = true;
      continue;
    }
    const std::string package = json::string_member(event, "Package");
    const std::string test = json::string_member(event, "Test");
    if (test.empty()) {
      if (action == "output") append_bounded(report.other_output, output);
      if (action == "fail") {
        report.any_failed = true;
        if (const auto failed_build = json::string_view_member(event, "FailedBuild")) {
          report.build_failed = true;
        } else if (!package_has_failed_test[package]) {
          report.failed_packages.push_back(package);
        }
      }
      continue;
    }
    auto& entry = running[{package, test}];
    if (action == "run") {
      entry.order = started++;
    } else if (action == "output") {
      if (!is_framing_line(output)) append_bounded(entry.output, output);
    } else if (action == "pass" || action == "fail" || action == "skip") {
      plugin::TestCase done;
      done.package = package;
      done.name = test;
      done.outcome = action == "pass"   ? plugin::TestOutcome::pass
                     : action == "skip" ? plugin::TestOutcome::skip
                                        : plugin::TestOutcome::fail;
      done.elapsed_ms = elapsed_ms(event);
      done.output = elide_middle(strip_sandbox_paths(entry.output), kTestOutputKeep);
      if (done.outcome == plugin::TestOutcome::fail) {
        report.any_failed = true;
        package_has_failed_test[package] = true;
      }
      finished.push_back(std::move(done));
      running.erase({package, test});
    }
  }
  // Tests that started and never finished: the binary died under them (a panic elsewhere, a
  // timeout, os.Exit). Each is a failure, with what it printed.
  for (auto& [key, entry] : running) {
    plugin::TestCase unfinished;
    unfinished.package = key.first;
    unfinished.name = key.second;
    unfinished.outcome = plugin::TestOutcome::fail;
    unfinished.output = elide_middle(strip_sandbox_paths(entry.output), kTestOutputKeep);
    if (!unfinished.output.empty() && unfinished.output.back() != '\n') unfinished.output += '\n';
    unfinished.output += "(did not finish: the test binary ended while it ran; see stderr)\n";
    report.any_failed = true;
    finished.push_back(std::move(unfinished));
  }
  for (auto& test : finished) {
    if (report.tests.size() >= kMaxTestCases && test.outcome != plugin::TestOutcome::fail) {
      ++report.tests_left_out;
      continue;
    }
    report.tests.push_back(std::move(test));
  }
  report.other_output = elide_middle(strip_sandbox_paths(report.other_output), kStreamKeep);
  return report;
}

}  // namespace kg::go_program
