#include "error_body.hpp"

#include <string>
#include <utility>

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

const MemberReader& error_body() {
  static const MemberReader reader("the daemon's error answer");
  return reader;
}

}  // namespace

std::string encode_error_body(const ErrorBody& error) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  write_text(w, "code", error.code);
  write_text(w, "message", error.message);
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

ErrorBody decode_error_body(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the daemon's error answer is not a JSON object");
  const rapidjson::Value* error = given(value, "error");
  if (error == nullptr) {
    throw MalformedMessage("the daemon's error answer has no \"error\" object");
  }
  error_body().object_at(*error, "error");
  ErrorBody body;
  for (auto [name, out] : {std::pair{"code", &body.code}, std::pair{"message", &body.message}}) {
    if (given(*error, name) == nullptr) {
      throw MalformedMessage(std::string("the daemon's error answer has no \"error.") + name +
                             "\" string");
    }
    error_body().read(*error, name, "error.", *out);
  }
  return body;
}

}  // namespace kg::wire::daemon_api
