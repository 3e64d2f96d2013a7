#include "json_text.hpp"

#include "malformed_message.hpp"
#include "utf8_text.hpp"

namespace kg::wire::sandbox_api {

std::string text_of(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

void write_text(JsonWriter& writer, std::string_view text) {
  const std::string valid = json::to_valid_utf8(text);
  writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

rapidjson::Document read_answer_object(std::string_view text) {
  json::ReadJson read = json::read_json(text, json::kSandboxOutputLimits);
  if (read.refused) throw MalformedMessage("the sandbox's answer " + read.refused->describe());
  if (!read.document.IsObject()) throw MalformedMessage("the sandbox's answer is not a JSON object");
  return std::move(read.document);
}

}  // namespace kg::wire::sandbox_api
