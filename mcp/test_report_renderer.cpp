#include "test_report_renderer.hpp"

#include <set>
#include <string_view>

#include "json_members.hpp"

namespace kg::cli {
namespace {

// Passed names past this many are counted, not listed.
constexpr std::size_t kPassedNamesShown = 40;

std::string count_of(const rapidjson::Value& tests, const char* name) {
  const rapidjson::Value* value = json::find_member(tests, name);
  return value != nullptr && value->IsUint64() ? std::to_string(value->GetUint64()) : "?";
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && text[start] == ' ') ++start;
  return text.substr(start);
}

}  // namespace

std::string render_test_report(const rapidjson::Value& tests) {
  const rapidjson::Value* cases = json::find_member(tests, "cases");
  if (cases == nullptr || !cases->IsArray()) return {};
  std::set<std::string> packages;
  for (const auto& test : cases->GetArray()) packages.insert(json::string_member(test, "package"));
  const bool name_packages = packages.size() > 1;
  const auto test_name = [&](const rapidjson::Value& test) {
    std::string name = json::string_member(test, "name");
    return name_packages ? json::string_member(test, "package") + " " + name : name;
  };

  std::string out = "tests: " + count_of(tests, "passed") + " passed, " +
                    count_of(tests, "failed") + " failed, " + count_of(tests, "skipped") +
                    " skipped\n";
  std::string failed, skipped, passed;
  std::size_t passed_listed = 0, passed_more = 0;
  for (const auto& test : cases->GetArray()) {
    const std::string outcome = json::string_member(test, "outcome");
    const std::string output = json::string_member(test, "output");
    if (outcome == "fail") {
      const rapidjson::Value* elapsed = json::find_member(test, "elapsed_ms");
      failed += "FAIL " + test_name(test) + " (" +
                (elapsed != nullptr && elapsed->IsUint64() ? std::to_string(elapsed->GetUint64())
                                                           : std::string("?")) +
                "ms)\n";
      failed += output;
      if (!output.empty() && output.back() != '\n') failed += '\n';
    } else if (outcome == "skip") {
      const std::string reason = trimmed(output);
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
