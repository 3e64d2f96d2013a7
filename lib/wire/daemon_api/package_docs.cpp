#include "package_docs.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

void write_text(JsonWriter& w, const char* key, const std::string& value) {
  w.Key(key);
  write_bytes(w, json::is_valid_utf8(value) ? value : json::to_valid_utf8(value));
}

void write_package_and_symbol(JsonWriter& w, const std::string& package,
                              const std::optional<std::string>& symbol) {
  write_text(w, "package", package);
  if (symbol) write_text(w, "symbol", *symbol);
}

std::string required_text(const rapidjson::Value& object, const char* key) {
  const rapidjson::Value* value = given(object, key);
  if (value == nullptr) throw MalformedMessage(std::string("\"") + key + "\" is required");
  if (!value->IsString()) throw MalformedMessage(std::string("\"") + key + "\" must be a string");
  return string_of(*value);
}

std::optional<std::string> optional_text(const rapidjson::Value& object, const char* key) {
  if (given(object, key) == nullptr) return std::nullopt;
  return required_text(object, key);
}

void require_object(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the body must be a JSON object");
}

}  // namespace

std::string encode_docs_request(const DocsRequest& request) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_package_and_symbol(w, request.package, request.symbol);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string encode_docs_answer(const DocsAnswer& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_package_and_symbol(w, answer.package, answer.symbol);
  write_text(w, "docs", answer.docs);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

DocsRequest decode_docs_request(const rapidjson::Value& value) {
  require_object(value);
  return {required_text(value, "package"), optional_text(value, "symbol")};
}

DocsAnswer decode_docs_answer(const rapidjson::Value& value) {
  require_object(value);
  return {required_text(value, "package"), optional_text(value, "symbol"),
          required_text(value, "docs")};
}

}  // namespace kg::wire::daemon_api
