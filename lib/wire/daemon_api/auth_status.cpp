#include "auth_status.hpp"

#include <utility>

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

// The text members in the order they are written.
constexpr std::pair<const char*, std::string AuthStatus::*> kTexts[] = {
    {"mode", &AuthStatus::mode},
    {"credential_type", &AuthStatus::credential_type},
    {"email", &AuthStatus::email},
    {"project_id", &AuthStatus::project_id},
    {"quota_project_id", &AuthStatus::quota_project_id},
    {"token_expiry", &AuthStatus::token_expiry},
    {"source", &AuthStatus::source},
    {"problem", &AuthStatus::problem},
    {"login_hint", &AuthStatus::login_hint},
    {"sealed", &AuthStatus::sealed},
};

void write_text(JsonWriter& w, const char* key, const std::string& value) {
  if (value.empty()) return;
  w.Key(key);
  write_bytes(w, json::is_valid_utf8(value) ? value : json::to_valid_utf8(value));
}

void read_text(const rapidjson::Value& object, const char* key, std::string& out) {
  const rapidjson::Value* value = given(object, key);
  if (value == nullptr) return;
  if (!value->IsString()) {
    throw MalformedMessage(std::string("the daemon's auth status has \"") + key +
                           "\" that is not a string");
  }
  out = string_of(*value);
}

}  // namespace

std::string encode_auth_status(const AuthStatus& status) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_text(w, "plugin", status.plugin);
  w.Key("plugin_loaded");
  w.Bool(status.plugin_loaded);
  for (const auto& [key, member] : kTexts) write_text(w, key, status.*member);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

AuthStatus decode_auth_status(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the daemon's auth status is not a JSON object");
  AuthStatus status;
  read_text(value, "plugin", status.plugin);
  if (const rapidjson::Value* loaded = given(value, "plugin_loaded")) {
    if (!loaded->IsBool()) {
      throw MalformedMessage("the daemon's auth status has \"plugin_loaded\" that is not true or false");
    }
    status.plugin_loaded = loaded->GetBool();
  }
  for (const auto& [key, member] : kTexts) read_text(value, key, status.*member);
  return status;
}

}  // namespace kg::wire::daemon_api
