#include "plugins_listing.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"
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

void write_limits(JsonWriter& w, const CallLimits& l) {
  w.Key("limits");
  w.StartObject();
  w.Key("run_timeout_ms"); w.Uint(l.run_timeout_ms);
  w.Key("max_run_timeout_ms"); w.Uint(l.max_run_timeout_ms);
  w.Key("build_timeout_ms"); w.Uint(l.build_timeout_ms);
  w.Key("output_bytes"); w.Uint64(l.output_bytes);
  w.EndObject();
}

const MemberReader& listing_reader() {
  static const MemberReader reader("the daemon's plugins listing");
  return reader;
}

PluginEntry read_plugin(const rapidjson::Value& v, const std::string& where) {
  listing_reader().object_at(v, where);
  const std::string at = where + ".";
  PluginEntry p;
  listing_reader().read(v, "name", at, p.name);
  listing_reader().read(v, "kind", at, p.kind);
  listing_reader().read(v, "version", at, p.version);
  listing_reader().read(v, "description", at, p.description);
  listing_reader().read(v, "path", at, p.path);
  listing_reader().read(v, "state", at, p.state);
  listing_reader().read(v, "reason", at, p.reason);
  return p;
}

RuntimeEntry read_runtime(const rapidjson::Value& v, const std::string& where) {
  listing_reader().object_at(v, where);
  const std::string at = where + ".";
  RuntimeEntry r;
  listing_reader().read(v, "name", at, r.name);
  if (r.name.empty()) listing_reader().wrong(at + "name", "a runtime's name");
  listing_reader().read(v, "available", at, r.available);
  listing_reader().read(v, "default", at, r.is_default);
  listing_reader().read(v, "description", at, r.description);
  if (const rapidjson::Value* chooses = listing_reader().array_at(v, "chooses", at)) {
    for (const auto& name : chooses->GetArray()) {
      if (!name.IsString()) listing_reader().wrong(at + "chooses[]", "a string");
      r.chooses.push_back(string_of(name));
    }
  }
  listing_reader().read(v, "reason", at, r.reason);
  return r;
}

CallLimits read_limits(const rapidjson::Value& v) {
  CallLimits l;
  for (const char* name : {"run_timeout_ms", "max_run_timeout_ms", "build_timeout_ms",
                           "output_bytes"}) {
    if (given(v, name) == nullptr) {
      throw MalformedMessage(std::string("the daemon's plugins listing has \"limits\" without \"") +
                             name + "\"");
    }
  }
  listing_reader().read(v, "run_timeout_ms", "limits.", l.run_timeout_ms);
  listing_reader().read(v, "max_run_timeout_ms", "limits.", l.max_run_timeout_ms);
  listing_reader().read(v, "build_timeout_ms", "limits.", l.build_timeout_ms);
  listing_reader().read(v, "output_bytes", "limits.", l.output_bytes);
  return l;
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
  if (listing.limits) write_limits(w, *listing.limits);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

PluginsListing decode_plugins_listing(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the daemon's plugins listing is not a JSON object");
  PluginsListing listing;
  if (const rapidjson::Value* plugins = listing_reader().array_at(value, "plugins", "")) {
    listing.plugins.emplace();
    rapidjson::SizeType i = 0;
    for (const auto& p : plugins->GetArray()) {
      listing.plugins->push_back(read_plugin(p, "plugins[" + std::to_string(i++) + "]"));
    }
  }
  const rapidjson::Value* runtimes = listing_reader().array_at(value, "runtimes", "");
  if (runtimes == nullptr) {
    throw MalformedMessage("the daemon's plugins listing has no \"runtimes\" array");
  }
  rapidjson::SizeType i = 0;
  for (const auto& r : runtimes->GetArray()) {
    listing.runtimes.push_back(read_runtime(r, "runtimes[" + std::to_string(i++) + "]"));
  }
  if (const rapidjson::Value* limits = listing_reader().object_member(value, "limits", "")) {
    listing.limits = read_limits(*limits);
  }
  return listing;
}

}  // namespace kg::wire::daemon_api
