#include "json_text.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kg::cli {
rapidjson::Document parse_json(std::string_view text, std::string_view what) {
  return json::read_json_or_throw(text, json::kDaemonAnswerLimits, what);
}

std::string pretty_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string compact_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string quoted_json(std::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return {buffer.GetString(), buffer.GetSize()};
}

std::string member_text(const rapidjson::Value& object, const char* name,
                        std::string_view missing) {
  if (!object.IsObject()) return std::string(missing);
  const auto found = object.FindMember(name);
  if (found == object.MemberEnd() || found->value.IsNull()) return std::string(missing);
  const rapidjson::Value& value = found->value;
  if (value.IsString()) return {value.GetString(), value.GetStringLength()};
  if (value.IsInt64()) return std::to_string(value.GetInt64());
  if (value.IsUint64()) return std::to_string(value.GetUint64());
  if (value.IsDouble()) {
    const double number = value.GetDouble();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 1e15) {
      return std::to_string(static_cast<long long>(number));
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.1f", number);
    return text;
  }
  return compact_json(value);
}

}  // namespace kg::cli
