// Reading members of a parsed JSON value without trusting its shape: every accessor answers
// "missing" for a value that is not an object, a member that is absent, or one of another type,
// and keeps a string's real length (NULs included). The one set of getters the daemon, the CLI
// and the plugins use (docs/architecture.md, lib/).
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kg::json {

// The member `name` of `object`, or nullptr when `object` is null, not an object, or lacks it.
const rapidjson::Value* find_member(const rapidjson::Value* object, std::string_view name);
const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view name);

// A string member as it is (a view into the document), or nullopt.
std::optional<std::string_view> string_view_member(const rapidjson::Value& object,
                                                   std::string_view name);
// A string member, copied, or nullopt.
std::optional<std::string> optional_string_member(const rapidjson::Value& object,
                                                  std::string_view name);
// A string member, copied, or "" when there is none.
std::string string_member(const rapidjson::Value& object, std::string_view name);

// An integer member that fits in 64 signed bits, or nullopt.
std::optional<std::int64_t> int64_member(const rapidjson::Value& object, std::string_view name);

}  // namespace kg::json
