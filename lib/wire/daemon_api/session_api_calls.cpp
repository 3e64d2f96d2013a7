#include "session_api_calls.hpp"

#include "json_fields.hpp"
#include "malformed_message.hpp"
#include "member_reader.hpp"
#include "utf8_text.hpp"

namespace kg::wire::daemon_api {
namespace {

// A request's strings came from a program's request: written as JSON strings (U+FFFD for bytes
// that are not UTF-8), never trusted as anything else.
void write_member(JsonWriter& w, const char* name, std::string_view text) {
  w.Key(name);
  write_bytes(w, json::is_valid_utf8(text) ? std::string(text) : json::to_valid_utf8(text));
}

void write_optional(JsonWriter& w, const char* name, const std::string& text) {
  if (!text.empty()) write_member(w, name, text);
}

void write_audited_call(JsonWriter& w, const AuditedApiCall& c) {
  w.StartObject();
  w.Key("id"); w.Int64(c.id);
  w.Key("call_id"); w.Int64(c.call_id);
  write_member(w, "recorded_at", c.recorded_at);
  write_member(w, "host", c.host);
  write_member(w, "http_method", c.http_method);
  w.Key("grpc"); w.Bool(c.grpc);
  write_member(w, "service", c.service);
  write_member(w, "method", c.method);
  write_optional(w, "resource", c.resource);
  write_optional(w, "project", c.project);
  write_optional(w, "billing_project", c.billing_project);
  if (!c.buckets.empty()) {
    w.Key("buckets");
    w.StartArray();
    for (const auto& bucket : c.buckets) write_bytes(w, json::to_valid_utf8(bucket));
    w.EndArray();
  }
  w.Key("read"); w.Bool(c.read);
  w.Key("http_status"); w.Int(c.http_status);
  if (c.grpc_status) { w.Key("grpc_status"); w.Int(*c.grpc_status); }
  write_optional(w, "refused", c.refused_rule);
  write_optional(w, "refusal", c.refusal);
  w.Key("request_bytes"); w.Uint64(c.request_bytes);
  w.Key("response_bytes"); w.Uint64(c.response_bytes);
  w.Key("duration_us"); w.Uint64(c.duration_us);
  w.EndObject();
}

const MemberReader& reader() {
  static const MemberReader instance("the daemon's api_calls answer");
  return instance;
}

AuditedApiCall read_audited_call(const rapidjson::Value& item, const std::string& where) {
  reader().object_at(item, where);
  const std::string at = where + ".";
  AuditedApiCall c;
  reader().read(item, "id", at, c.id);
  reader().read(item, "call_id", at, c.call_id);
  reader().read(item, "recorded_at", at, c.recorded_at);
  reader().read(item, "host", at, c.host);
  reader().read(item, "http_method", at, c.http_method);
  reader().read(item, "grpc", at, c.grpc);
  reader().read(item, "service", at, c.service);
  reader().read(item, "method", at, c.method);
  reader().read(item, "resource", at, c.resource);
  reader().read(item, "project", at, c.project);
  reader().read(item, "billing_project", at, c.billing_project);
  reader().read_array(item, "buckets", at, [&](const rapidjson::Value& bucket, const std::string& path) {
    if (!bucket.IsString()) reader().wrong(path, "a string");
    c.buckets.push_back(string_of(bucket));
  });
  reader().read(item, "read", at, c.read);
  reader().read(item, "http_status", at, c.http_status);
  if (given(item, "grpc_status") != nullptr) {
    int status = 0;
    reader().read(item, "grpc_status", at, status);
    c.grpc_status = status;
  }
  reader().read(item, "refused", at, c.refused_rule);
  reader().read(item, "refusal", at, c.refusal);
  reader().read(item, "request_bytes", at, c.request_bytes);
  reader().read(item, "response_bytes", at, c.response_bytes);
  reader().read(item, "duration_us", at, c.duration_us);
  return c;
}

}  // namespace

std::string encode_session_api_calls(const SessionApiCalls& answer) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_member(w, "session_id", answer.session_id);
  w.Key("count"); w.Uint64(answer.count);
  w.Key("refused"); w.Uint64(answer.refused);
  w.Key("dropped"); w.Uint64(answer.dropped);
  w.Key("api_calls");
  w.StartArray();
  for (const auto& call : answer.api_calls) write_audited_call(w, call);
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

SessionApiCalls decode_session_api_calls(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the daemon's api_calls answer is not a JSON object");
  SessionApiCalls answer;
  reader().read(value, "session_id", "", answer.session_id);
  reader().read(value, "count", "", answer.count);
  reader().read(value, "refused", "", answer.refused);
  reader().read(value, "dropped", "", answer.dropped);
  reader().read_array(value, "api_calls", "", [&](const rapidjson::Value& item,
                                                  const std::string& where) {
    answer.api_calls.push_back(read_audited_call(item, where));
  });
  return answer;
}

}  // namespace kg::wire::daemon_api
