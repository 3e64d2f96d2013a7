// JSON text in and out for the CLI: parsing the daemon's answers with the parser's own message
// and position, and the 2-space pretty form used by --json and the result block.
// Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "json_reader.hpp"

namespace kg::cli {

// Reads the daemon's answer within json::kDaemonAnswerLimits, so that rendering it afterwards
// (pretty_json, CopyFrom) recurses a bounded number of levels whatever the answer holds;
// strings that are not UTF-8 come out repaired. Throws json::JsonInputError
// "<what> is not valid JSON: <reason> (line L, column C)" or
// "<what> nests deeper than 136 levels (line L, column C)".
rapidjson::Document parse_json(std::string_view text, std::string_view what);

// `value` with 2-space indentation and no trailing newline.
std::string pretty_json(const rapidjson::Value& value);

// `value` on one line.
std::string compact_json(const rapidjson::Value& value);

// `text` as a JSON string literal, quotes included.
std::string quoted_json(std::string_view text);

// A member as a person reads it in a table or a status line: strings bare, whole numbers without
// a decimal point, other numbers with one decimal, anything else as compact JSON; `missing` when
// `object` lacks it or it is null.
std::string member_text(const rapidjson::Value& object, const char* name,
                        std::string_view missing = "-");

}  // namespace kg::cli
