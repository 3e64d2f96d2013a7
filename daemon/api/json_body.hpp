// Parsing and writing the daemon API's JSON bodies.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace kg::api {

// Parses a request body that must be one JSON object. Iterative parsing, so a deeply nested
// body cannot exhaust the stack. Throws BadRequestError "invalid JSON at line L, column C: ...".
rapidjson::Document parse_json_object(std::string_view body);

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

inline void write_string(JsonWriter& w, std::string_view text) {
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

}  // namespace kg::api
