// How the daemon API's decoders read an answer's members: each member is checked against the
// JSON type its field has, and one out of shape is refused with "<subject> has "<path>" that is
// not <shape>", the path naming it ("api_calls.calls[2].method"). An absent or null member
// leaves the field's default. Header-only, shared by the decoders in this folder. Pure; any
// thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "json_fields.hpp"
#include "malformed_message.hpp"

namespace kg::wire::daemon_api {

// The JSON shape a member of each type must have, as the refusal names it.
template <class T>
inline constexpr const char* kMemberShape = "a whole number";
template <>
inline constexpr const char* kMemberShape<std::string> = "a string";
template <>
inline constexpr const char* kMemberShape<bool> = "true or false";
template <>
inline constexpr const char* kMemberShape<int> = "an integer";
template <>
inline constexpr const char* kMemberShape<std::int64_t> = "an integer";

class MemberReader {
 public:
  // subject: what is read, as the refusal starts ("the daemon's answer").
  explicit MemberReader(std::string subject) : subject_(std::move(subject)) {}

  [[noreturn]] void wrong(const std::string& where, const char* shape) const {
    throw MalformedMessage(subject_ + " has \"" + where + "\" that is not " + shape);
  }

  const rapidjson::Value& object_at(const rapidjson::Value& value, const std::string& where) const {
    if (!value.IsObject()) wrong(where, "an object");
    return value;
  }

  // The member `name` of `object` into `out` when given; `where` is the path up to it.
  template <class T>
  void read(const rapidjson::Value& object, const char* name, const std::string& where,
            T& out) const {
    const rapidjson::Value* value = given(object, name);
    if (value == nullptr) return;
    if constexpr (std::is_same_v<T, std::string>) {
      if (!value->IsString()) wrong(where + name, kMemberShape<T>);
      out = string_of(*value);
    } else {
      if (!value->template Is<T>()) wrong(where + name, kMemberShape<T>);
      out = value->template Get<T>();
    }
  }

  // The object member `name`, or nullptr when absent or null.
  const rapidjson::Value* object_member(const rapidjson::Value& object, const char* name,
                                        const std::string& where) const {
    const rapidjson::Value* value = given(object, name);
    if (value != nullptr && !value->IsObject()) wrong(where + name, "an object");
    return value;
  }

  // The array member `name`, or nullptr when absent or null.
  const rapidjson::Value* array_at(const rapidjson::Value& object, const char* name,
                                   const std::string& where) const {
    const rapidjson::Value* value = given(object, name);
    if (value != nullptr && !value->IsArray()) wrong(where + name, "an array");
    return value;
  }

  // Calls `each(item, "<where><name>[i]")` for every item of the array member `name`.
  template <class Each>
  void read_array(const rapidjson::Value& object, const char* name, const std::string& where,
                  Each each) const {
    const rapidjson::Value* value = array_at(object, name, where);
    if (value == nullptr) return;
    rapidjson::SizeType i = 0;
    for (const auto& item : value->GetArray()) {
      each(item, where + name + "[" + std::to_string(i++) + "]");
    }
  }

 private:
  std::string subject_;
};

}  // namespace kg::wire::daemon_api
