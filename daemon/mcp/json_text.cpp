#include "json_text.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kg::cli {
namespace {

// 1-based line and column of a byte offset.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

rapidjson::Document parse_json(std::string_view text, std::string_view what) {
  auto parsed = sandbox_output::parse_bounded(text, kMaxAnswerDepth);
  if (parsed.refused) {
    const auto [line, column] = line_and_column(text, parsed.refused->offset);
    const std::string where =
        " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
    const std::string_view verdict = parsed.refused->too_deep ? " " : " is not valid JSON: ";
    throw std::runtime_error(std::string(what) + std::string(verdict) + parsed.refused->reason +
                             where);
  }
  return std::move(parsed.document);
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
