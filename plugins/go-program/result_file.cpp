#include "result_file.hpp"

#include "json_reader.hpp"
#include "utf8_text.hpp"

namespace kg::go_program {

CheckedResult check_result_file(const std::optional<std::string>& text,
                                std::vector<std::string>& warnings) {
  CheckedResult checked;
  if (!text) return checked;
  // The program wrote this file: read it without recursion, within the depth bound, and pass on
  // only the clean copy, so nothing after the plugin meets its raw bytes.
  auto clean = json::clean_json(*text);
  if (clean.refused) {
    warnings.push_back("result.json " + clean.refused->describe() + "; it was ignored");
    return checked;
  }
  const auto parsed = json::read_json(clean.text, json::kSandboxOutputLimits);
  const auto& doc = parsed.document;
  const bool has_kind = doc.IsObject() && doc.HasMember("kind") && doc["kind"].IsString();
  if (!has_kind) {
    warnings.push_back("result.json is not an object with a \"kind\"; it was ignored");
    return checked;
  }
  const std::string kind_text(doc["kind"].GetString(), doc["kind"].GetStringLength());
  if (kind_text != "ok" && kind_text != "error" && kind_text != "panic" &&
      kind_text != "marshal_error") {
    const auto shown = json::utf8_boundary_before(kind_text, 64);
    warnings.push_back("result.json has unknown kind \"" + kind_text.substr(0, shown) +
                       (shown < kind_text.size() ? "…" : "") +
                       "\" (expected ok, error, panic or marshal_error); it was ignored");
    return checked;
  }
  if (clean.repaired_strings > 0) {
    warnings.push_back("result.json had " + std::to_string(clean.repaired_strings) +
                       " string(s) or key(s) that were not valid UTF-8; each invalid byte was "
                       "replaced with U+FFFD");
  }
  checked.json = std::move(clean.text);
  checked.kind = kind_text;
  return checked;
}

}  // namespace kg::go_program
