#include "sessions_listing.hpp"

#include <string>

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

void write_if_given(JsonWriter& w, const char* key, const std::string& value) {
  if (!value.empty()) write_text(w, key, value);
}

// The order is the one the daemon has always written (docs/daemon-api.md, "Session").
void write_session(JsonWriter& w, const Session& s) {
  w.StartObject();
  write_text(w, "id", s.id);
  write_text(w, "client", s.client);
  write_text(w, "provider", s.provider);
  write_if_given(w, "sandbox_id", s.sandbox_id);
  write_text(w, "runtime", s.runtime);
  write_text(w, "state", s.state);
  write_text(w, "opened_at", s.opened_at);
  write_if_given(w, "closed_at", s.closed_at);
  write_if_given(w, "close_reason", s.close_reason);
  w.Key("calls"); w.Int64(s.calls);
  w.Key("api_calls"); w.Int64(s.api_calls);
  w.Key("api_calls_refused"); w.Int64(s.api_calls_refused);
  write_if_given(w, "identity", s.identity);
  if (!s.owner.empty()) {
    write_text(w, "owner", s.owner);
    write_text(w, "owner_email", s.owner_email);
  }
  w.EndObject();
}

Session read_session(const MemberReader& reader, const rapidjson::Value& v,
                     const std::string& where) {
  if (!where.empty()) reader.object_at(v, where);
  const std::string at = where.empty() ? "" : where + ".";
  Session s;
  reader.read(v, "id", at, s.id);
  if (s.id.empty()) reader.wrong(at + "id", "a session id");
  reader.read(v, "client", at, s.client);
  reader.read(v, "provider", at, s.provider);
  reader.read(v, "sandbox_id", at, s.sandbox_id);
  reader.read(v, "runtime", at, s.runtime);
  reader.read(v, "state", at, s.state);
  reader.read(v, "opened_at", at, s.opened_at);
  reader.read(v, "closed_at", at, s.closed_at);
  reader.read(v, "close_reason", at, s.close_reason);
  reader.read(v, "calls", at, s.calls);
  reader.read(v, "api_calls", at, s.api_calls);
  reader.read(v, "api_calls_refused", at, s.api_calls_refused);
  reader.read(v, "identity", at, s.identity);
  reader.read(v, "owner", at, s.owner);
  reader.read(v, "owner_email", at, s.owner_email);
  return s;
}

std::string finish(rapidjson::StringBuffer& buffer) { return {buffer.GetString(), buffer.GetSize()}; }

}  // namespace

std::string encode_session(const Session& session) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  write_session(w, session);
  return finish(buffer);
}

std::string encode_sessions_listing(const SessionsListing& listing) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("sessions");
  w.StartArray();
  for (const auto& s : listing.sessions) write_session(w, s);
  w.EndArray();
  w.EndObject();
  return finish(buffer);
}

Session decode_session(const rapidjson::Value& value) {
  static const MemberReader reader("the daemon's session");
  if (!value.IsObject()) throw MalformedMessage("the daemon's session is not a JSON object");
  return read_session(reader, value, "");
}

SessionsListing decode_sessions_listing(const rapidjson::Value& value) {
  static const MemberReader reader("the daemon's sessions listing");
  if (!value.IsObject()) {
    throw MalformedMessage("the daemon's sessions listing is not a JSON object");
  }
  if (reader.array_at(value, "sessions", "") == nullptr) {
    throw MalformedMessage("the daemon's sessions listing has no \"sessions\" array");
  }
  SessionsListing listing;
  reader.read_array(value, "sessions", "", [&](const rapidjson::Value& item, const std::string& at) {
    listing.sessions.push_back(read_session(reader, item, at));
  });
  return listing;
}

}  // namespace kg::wire::daemon_api
