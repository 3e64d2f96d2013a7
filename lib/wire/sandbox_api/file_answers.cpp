#include "file_answers.hpp"

#include "json_members.hpp"
#include "json_text.hpp"
#include "malformed_message.hpp"

namespace kg::wire::sandbox_api {

std::string encode_list_answer(const std::vector<ListEntry>& entries) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartArray();
  for (const ListEntry& entry : entries) {
    writer.StartObject();
    writer.Key("name");
    write_text(writer, entry.name);
    writer.Key("size");
    writer.Uint64(entry.size);
    writer.Key("type");
    writer.String(entry.directory ? "directory" : "file");
    writer.Key("mod_time");
    writer.Double(entry.mod_time);
    writer.EndObject();
  }
  writer.EndArray();
  return text_of(buffer);
}

std::string encode_exists_answer(const ExistsAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("path");
  write_text(writer, answer.path);
  writer.Key("exists");
  writer.Bool(answer.exists);
  writer.EndObject();
  return text_of(buffer);
}

std::vector<ListEntry> decode_list_answer(std::string_view text) {
  const json::ReadJson read = json::read_json(text, json::kSandboxOutputLimits);
  if (read.refused) throw MalformedMessage("the sandbox's answer " + read.refused->describe());
  if (!read.document.IsArray()) throw MalformedMessage("the sandbox's answer is not a JSON array");
  std::vector<ListEntry> entries;
  for (const rapidjson::Value& item : read.document.GetArray()) {
    if (!item.IsObject()) {
      throw MalformedMessage("the sandbox's answer lists an entry that is not a JSON object");
    }
    ListEntry entry;
    entry.name = json::string_member(item, "name");
    const auto size = item.FindMember("size");
    entry.size = size != item.MemberEnd() && size->value.IsUint64() ? size->value.GetUint64() : 0;
    entry.directory = json::string_member(item, "type") == "directory";
    const auto mod_time = item.FindMember("mod_time");
    entry.mod_time = mod_time != item.MemberEnd() && mod_time->value.IsNumber()
                         ? mod_time->value.GetDouble()
                         : 0;
    entries.push_back(std::move(entry));
  }
  return entries;
}

ExistsAnswer decode_exists_answer(std::string_view text) {
  const rapidjson::Document document = read_answer_object(text);
  const auto exists = document.FindMember("exists");
  return ExistsAnswer{json::string_member(document, "path"),
                      exists != document.MemberEnd() && exists->value.IsBool() &&
                          exists->value.GetBool()};
}

}  // namespace kg::wire::sandbox_api
