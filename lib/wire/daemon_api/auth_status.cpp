#include "auth_status.hpp"

#include <utility>

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"
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
    {"program_holds", &AuthStatus::program_holds},
    {"signed_in_users_mode", &AuthStatus::signed_in_users_mode},
};

void write_text(JsonWriter& w, const char* key, const std::string& value) {
  if (value.empty()) return;
  w.Key(key);
  write_bytes(w, json::is_valid_utf8(value) ? value : json::to_valid_utf8(value));
}

const MemberReader& auth_status() {
  static const MemberReader reader("the daemon's auth status");
  return reader;
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
  auth_status().read(value, "plugin", "", status.plugin);
  auth_status().read(value, "plugin_loaded", "", status.plugin_loaded);
  for (const auto& [key, member] : kTexts) auth_status().read(value, key, "", status.*member);
  return status;
}

}  // namespace kg::wire::daemon_api
