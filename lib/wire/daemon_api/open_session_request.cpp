#include "open_session_request.hpp"

#include <string>
#include <utility>

#include "json_fields.hpp"
#include "malformed_message.hpp"

namespace kg::wire::daemon_api {

std::string encode_open_session_request(const OpenSessionRequest& request) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  if (!request.client.empty()) {
    w.Key("client");
    write_bytes(w, request.client);
  }
  if (!request.runtime.empty()) {
    w.Key("runtime");
    write_bytes(w, request.runtime);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

OpenSessionRequest decode_open_session_request(const rapidjson::Value& value) {
  if (!value.IsObject()) throw MalformedMessage("the request body must be a JSON object");
  OpenSessionRequest request;
  for (auto [name, out] : {std::pair{"client", &request.client},
                           std::pair{"runtime", &request.runtime}}) {
    const rapidjson::Value* member = given(value, name);
    if (member == nullptr) continue;
    if (!member->IsString()) throw MalformedMessage(std::string("\"") + name + "\" must be a string");
    *out = string_of(*member);
  }
  return request;
}

}  // namespace kg::wire::daemon_api
