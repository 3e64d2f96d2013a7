#include "plugins_listing.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

void write_text(JsonWriter& w, std::string_view value) {
  if (json::is_valid_utf8(value)) {
    write_bytes(w, value);
  } else {
    write_bytes(w, json::to_valid_utf8(value));
  }
}

void write_member(JsonWriter& w, const char* key, const std::string& value) {
  w.Key(key);
  write_text(w, value);
}

void write_plugin(JsonWriter& w, const PluginEntry& p) {
  w.StartObject();
  write_member(w, "name", p.name);
  write_member(w, "kind", p.kind);
  write_member(w, "version", p.version);
  write_member(w, "description", p.description);
  write_member(w, "path", p.path);
  write_member(w, "state", p.state);
  if (!p.reason.empty()) write_member(w, "reason", p.reason);
  w.EndObject();
}

void write_runtime(JsonWriter& w, const RuntimeEntry& r) {
  w.StartObject();
  write_member(w, "name", r.name);
  w.Key("available"); w.Bool(r.available);
  w.Key("default"); w.Bool(r.is_default);
  if (!r.description.empty()) write_member(w, "description", r.description);
  if (!r.chooses.empty()) {
    w.Key("chooses");
    w.StartArray();
    for (const auto& name : r.chooses) write_text(w, name);
    w.EndArray();
  }
  if (!r.reason.empty()) write_member(w, "reason", r.reason);
  w.EndObject();
}

[[noreturn]] void wrong(const std::string& where, const char* shape) {
  throw MalformedMessage("the daemon's plugins listing has \"" + where + "\" that is not " +
                         shape);
}

void read_text(const rapidjson::Value& o, const char* key, const std::string& where,
               std::string& out) {
  const rapidjson::Value* v = given(o, key);
  if (v == nullptr) return;
  if (!v->IsString()) wrong(where + key, "a string");
  out = string_of(*v);
}

void read_bool(const rapidjson::Value& o, const char* key, const std::string& where, bool& out) {
  const rapidjson::Value* v = given(o, key);
  if (v == nullptr) return;
  if (!v->IsBool()) wrong(where + key, "true or false");
  out = v->GetBool();
}

const rapidjson::Value* array_at(const rapidjson::Value& o, const char* key,
                                 const std::string& where) {
  const rapidjson::Value* v = given(o, key);
  if (v != nullptr && !v->IsArray()) wrong(where + key, "an array");
  return v;
}

PluginEntry read_plugin(const rapidjson::Value& v, const std::string& where) {
  if (!v.IsObject()) wrong(where, "an object");
  const std::string at = where + ".";
  PluginEntry p;
  read_text(v, "name", at, p.name);
  read_text(v, "kind", at, p.kind);
  read_text(v, "version", at, p.version);
  read_text(v, "description", at, p.description);
  read_text(v, "path", at, p.path);
  read_text(v, "state", at, p.state);
  read_text(v, "reason", at, p.reason);
  return p;
}

RuntimeEntry read_runtime(const rapidjson::Value& v, const std::string& where) {
  if (!v.IsObject()) wrong(where, "an object");
  const std::string at = where + ".";
  RuntimeEntry r;
  read_text(v, "name", at, r.name);
  if (r.name.empty()) wrong(at + "name", "a runtime's name");
  read_bool(v, "available", at, r.available);
  read_bool(v, "default", at, r.is_default);
  read_text(v, "description", at, r.description);
  if (const rapidjson::Value* chooses = array_at(v, "chooses", at)) {
    for (const auto& name : chooses->GetArray()) {
      if (!name.IsString()) wrong(at + "chooses[]", "a string");
      r.chooses.push_back(string_of(name));
    }
  }
  read_text(v, "reason", at, r.reason);
  return r;
}

}  // namespace

std::string encode_plugins_listing(const PluginsListing& listing) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  if (listing.plugins) {
    w.Key("plugins");
    w.StartArray();
    for (const auto& p : *listing.plugins) write_plugin(w, p);
    w.EndArray();
  }
  w.Key("runtimes");
  w.StartArray();
  for (const auto& r : listing.runtimes) write_runtime(w, r);
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

PluginsListing decode_plugins_listing(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the daemon's plugins listing is not a JSON object");
  PluginsListing listing;
  if (const rapidjson::Value* plugins = array_at(value, "plugins", "")) {
    listing.plugins.emplace();
    rapidjson::SizeType i = 0;
    for (const auto& p : plugins->GetArray()) {
      listing.plugins->push_back(read_plugin(p, "plugins[" + std::to_string(i++) + "]"));
    }
  }
  const rapidjson::Value* runtimes = array_at(value, "runtimes", "");
  if (runtimes == nullptr) {
    throw MalformedMessage("the daemon's plugins listing has no \"runtimes\" array");
  }
  rapidjson::SizeType i = 0;
  for (const auto& r : runtimes->GetArray()) {
    listing.runtimes.push_back(read_runtime(r, "runtimes[" + std::to_string(i++) + "]"));
  }
  return listing;
}

}  // namespace kg::wire::daemon_api
