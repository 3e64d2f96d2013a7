#include "auth_status_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kg::api {

std::string auth_status_json(const session::AuthStatus& status) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto text = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    w.Key(key);
    w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
  };
  const auto& id = status.identity;
  w.StartObject();
  text("plugin", status.plugin);
  w.Key("plugin_loaded");
  w.Bool(status.plugin_loaded);
  text("mode", std::string(plugin::to_string(id.mode)));
  text("credential_type", id.credential_type);
  text("email", id.email);
  text("project_id", id.project_id);
  text("quota_project_id", id.quota_project_id);
  text("token_expiry", id.token_expiry_rfc3339);
  text("source", id.source);
  text("problem", id.problem);
  text("login_hint", id.login_hint);
  text("sealed", status.sealed);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace kg::api
