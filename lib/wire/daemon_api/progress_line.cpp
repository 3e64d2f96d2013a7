#include "progress_line.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

void write_text(JsonWriter& w, const char* key, const std::string& value) {
  w.Key(key);
  write_bytes(w, json::is_valid_utf8(value) ? value : json::to_valid_utf8(value));
}

}  // namespace

std::string encode_progress_line(const ProgressLine& line) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("progress");
  w.StartObject();
  write_text(w, "phase", line.phase);
  write_text(w, "detail", line.detail);
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

ProgressLine decode_progress_line(const rapidjson::Value& value) {
  static const MemberReader reader("the daemon's progress line");
  if (!value.IsObject()) throw MalformedMessage("the daemon's progress line is not a JSON object");
  const rapidjson::Value* progress = reader.object_member(value, "progress", "");
  if (progress == nullptr) {
    throw MalformedMessage("the daemon's progress line has no \"progress\" object");
  }
  ProgressLine line;
  reader.read(*progress, "phase", "progress.", line.phase);
  reader.read(*progress, "detail", "progress.", line.detail);
  return line;
}

}  // namespace kg::wire::daemon_api
