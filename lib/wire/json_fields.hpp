// The JSON pieces every codec in lib/wire uses the same way: a string's bytes (NULs included), a
// member that counts as given (present and not null), and writing bytes as a JSON string exactly.
// Header-only so that each codec library stays free of the others. Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace kg::wire {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A JSON string value's bytes, NULs included.
inline std::string string_of(const rapidjson::Value& value) {
  return {value.GetString(), value.GetStringLength()};
}

// The member `name` of `object`, or nullptr when it is absent or null (both mean "not given").
inline const rapidjson::Value* given(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  if (member == object.MemberEnd() || member->value.IsNull()) return nullptr;
  return &member->value;
}

// `bytes` as a JSON string, exactly (a receiver that wants UTF-8 refuses what is not).
inline void write_bytes(JsonWriter& writer, std::string_view bytes) {
  writer.String(bytes.data(), static_cast<rapidjson::SizeType>(bytes.size()));
}

}  // namespace kg::wire
