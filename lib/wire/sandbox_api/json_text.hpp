// The small pieces the sandbox API's codecs share beyond json_fields.hpp: writing text repaired to
// UTF-8, and reading an answer's text as one JSON object with lib/json's bounded reader
// (docs/security.md, "JSON from outside"). Pure functions; any thread.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "json_fields.hpp"
#include "json_reader.hpp"

namespace kg::wire::sandbox_api {

// The writer's text.
std::string text_of(const rapidjson::StringBuffer& buffer);

// `text` as a JSON string with each byte that is not valid UTF-8 replaced by U+FFFD (command
// output and file names are arbitrary bytes; JSON must be UTF-8).
void write_text(JsonWriter& writer, std::string_view text);

// An answer of the sandbox read within kSandboxOutputLimits. Throws MalformedMessage "the
// sandbox's answer <why>" when it is not JSON or not an object.
rapidjson::Document read_answer_object(std::string_view text);

}  // namespace kg::wire::sandbox_api
