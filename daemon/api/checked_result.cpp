#include "checked_result.hpp"

#include "json_reader.hpp"
#include "utf8_text.hpp"

namespace kg::api {
namespace {

std::string repaired_warning(std::string_view what) {
  return std::string(what) + " not valid UTF-8; each invalid byte was replaced with U+FFFD";
}

// Repairs `text` in place; true when it had to.
bool repair(std::string& text) {
  if (json::is_valid_utf8(text)) return false;
  text = json::to_valid_utf8(text);
  return true;
}

}  // namespace

plugin::ExecuteResult checked_for_response(plugin::ExecuteResult result) {
  std::vector<std::string> found;
  if (repair(result.stdout_text)) found.push_back(repaired_warning("stdout was"));
  if (repair(result.stderr_text)) found.push_back(repaired_warning("stderr was"));
  bool diagnostics_repaired = false;
  for (auto& d : result.diagnostics) {
    diagnostics_repaired = repair(d.file) | diagnostics_repaired;
    diagnostics_repaired = repair(d.message) | diagnostics_repaired;
    diagnostics_repaired = repair(d.analyzer) | diagnostics_repaired;
  }
  if (diagnostics_repaired) found.push_back(repaired_warning("compiler diagnostics were"));
  bool tests_repaired = false;
  for (auto& test : result.tests) {
    tests_repaired = repair(test.package) | tests_repaired;
    tests_repaired = repair(test.name) | tests_repaired;
    tests_repaired = repair(test.output) | tests_repaired;
  }
  if (tests_repaired) found.push_back(repaired_warning("test names or output were"));
  bool warnings_repaired = false;
  for (auto& warning : result.warnings) warnings_repaired = repair(warning) | warnings_repaired;
  for (auto& notice : result.notices) warnings_repaired = repair(notice) | warnings_repaired;
  if (warnings_repaired) found.push_back(repaired_warning("warnings were"));
  if (result.result_json) {
    auto clean = json::clean_json(*result.result_json);
    if (clean.refused) {
      found.push_back("the runtime's result " + clean.refused->describe() + "; it was dropped");
      result.result_json.reset();
    } else {
      if (clean.repaired_strings > 0) {
        found.push_back(repaired_warning("the runtime's result had " +
                                         std::to_string(clean.repaired_strings) +
                                         " string(s) or key(s) that were"));
      }
      result.result_json = std::move(clean.text);
    }
  }
  for (auto& warning : found) result.warnings.push_back(std::move(warning));
  return result;
}

}  // namespace kg::api
