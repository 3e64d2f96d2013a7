#include "error_answer.hpp"

#include "json_text.hpp"

namespace kg::wire::sandbox_api {

std::string encode_error_answer(std::string_view message) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("detail");
  write_text(writer, message);
  writer.EndObject();
  return text_of(buffer);
}

std::optional<std::string> decode_error_answer(std::string_view body) {
  const json::ReadJson read = json::read_json(body, json::kSandboxOutputLimits);
  const rapidjson::Value& document = read.document;
  if (!document.IsObject()) return std::nullopt;
  for (const char* key : {"detail", "message"}) {
    const auto member = document.FindMember(key);
    if (member != document.MemberEnd() && member->value.IsString()) return string_of(member->value);
  }
  return std::nullopt;
}

}  // namespace kg::wire::sandbox_api
