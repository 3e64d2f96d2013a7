#include "result_file.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace kg::compiled_go {

CheckedResult check_result_file(const std::optional<std::string>& text,
                                std::vector<std::string>& warnings) {
  CheckedResult checked;
  if (!text) return checked;
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text->c_str(), text->size());
  if (doc.HasParseError()) {
    warnings.push_back(std::string("result.json is not valid JSON (") +
                       rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                       std::to_string(doc.GetErrorOffset()) + "); it was ignored");
    return checked;
  }
  const bool has_kind = doc.IsObject() && doc.HasMember("kind") && doc["kind"].IsString();
  if (!has_kind) {
    warnings.push_back("result.json is not an object with a \"kind\"; it was ignored");
    return checked;
  }
  const std::string kind_text = doc["kind"].GetString();
  if (kind_text != "ok" && kind_text != "error" && kind_text != "panic" &&
      kind_text != "marshal_error") {
    warnings.push_back("result.json has unknown kind \"" + kind_text +
                       "\" (expected ok, error, panic or marshal_error); it was ignored");
    return checked;
  }
  checked.json = *text;
  checked.kind = kind_text;
  return checked;
}

}  // namespace kg::compiled_go
