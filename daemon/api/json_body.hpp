// Parsing and writing the daemon API's JSON bodies.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "json_reader.hpp"
#include "utf8_text.hpp"

namespace kg::api {

// Reads a request body that must be one JSON object within json::kRequestLimits (valid UTF-8,
// nested at most 64 levels; lib/json), so no body can exhaust the stack. Throws
// BadRequestError "invalid JSON at line L, column C: ...", "invalid UTF-8 in a JSON string at
// line L, column C; ...", or "JSON nested deeper than 64 levels at line L, column C; ...".
rapidjson::Document parse_json_object(std::string_view body);

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Every string the daemon answers is valid UTF-8, whatever a sandbox put in it (an error
// message quoting a sandbox's answer, a session's close reason): invalid bytes become U+FFFD.
inline void write_string(JsonWriter& w, std::string_view text) {
  if (json::is_valid_utf8(text)) {
    w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  } else {
    const std::string valid = json::to_valid_utf8(text);
    w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  }
}

}  // namespace kg::api
