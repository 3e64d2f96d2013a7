#include "stats.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

void write_text(JsonWriter& w, const std::string& value) {
  write_bytes(w, json::is_valid_utf8(value) ? value : json::to_valid_utf8(value));
}

void write_key(JsonWriter& w, const std::string& key) {
  const std::string valid = json::is_valid_utf8(key) ? key : json::to_valid_utf8(key);
  w.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

const MemberReader& stats_reader() {
  static const MemberReader reader("the daemon's stats");
  return reader;
}

}  // namespace

std::string encode_stats(const Stats& stats) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("sessions");
  w.StartObject();
  w.Key("open"); w.Int64(stats.open_sessions);
  w.Key("total"); w.Int64(stats.total_sessions);
  w.EndObject();
  w.Key("calls");
  w.StartObject();
  w.Key("total"); w.Int64(stats.total_calls);
  w.Key("by_status");
  w.StartObject();
  for (const auto& [status, count] : stats.calls_by_status) {
    write_key(w, status);
    w.Int64(count);
  }
  w.EndObject();
  w.EndObject();
  w.Key("timings");
  w.StartArray();
  for (const auto& t : stats.timings) {
    w.StartObject();
    w.Key("runtime"); write_text(w, t.runtime);
    w.Key("metric"); write_text(w, t.metric);
    w.Key("count"); w.Int64(t.count);
    w.Key("p50"); w.Uint64(t.p50);
    w.Key("p95"); w.Uint64(t.p95);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Stats decode_stats(const rapidjson::Value& value) {
  const MemberReader& reader = stats_reader();
  if (!value.IsObject()) throw MalformedMessage("the daemon's stats is not a JSON object");
  Stats stats;
  if (const rapidjson::Value* sessions = reader.object_member(value, "sessions", "")) {
    reader.read(*sessions, "open", "sessions.", stats.open_sessions);
    reader.read(*sessions, "total", "sessions.", stats.total_sessions);
  }
  if (const rapidjson::Value* calls = reader.object_member(value, "calls", "")) {
    reader.read(*calls, "total", "calls.", stats.total_calls);
    if (const rapidjson::Value* by_status = reader.object_member(*calls, "by_status", "calls.")) {
      for (const auto& member : by_status->GetObject()) {
        const std::string status = string_of(member.name);
        if (!member.value.IsInt64()) reader.wrong("calls.by_status." + status, "an integer");
        stats.calls_by_status.emplace_back(status, member.value.GetInt64());
      }
    }
  }
  reader.read_array(value, "timings", "", [&](const rapidjson::Value& item, const std::string& where) {
    reader.object_at(item, where);
    const std::string at = where + ".";
    TimingRow row;
    reader.read(item, "runtime", at, row.runtime);
    reader.read(item, "metric", at, row.metric);
    reader.read(item, "count", at, row.count);
    reader.read(item, "p50", at, row.p50);
    reader.read(item, "p95", at, row.p95);
    stats.timings.push_back(std::move(row));
  });
  return stats;
}

}  // namespace kg::wire::daemon_api
