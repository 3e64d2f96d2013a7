#include "json_members.hpp"

namespace kg::json {

const rapidjson::Value* find_member(const rapidjson::Value* object, std::string_view name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  const auto found = object->FindMember(
      rapidjson::Value(rapidjson::StringRef(name.data(), name.size())));
  return found == object->MemberEnd() ? nullptr : &found->value;
}

const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view name) {
  return find_member(&object, name);
}

std::optional<std::string_view> string_view_member(const rapidjson::Value& object,
                                                   std::string_view name) {
  const rapidjson::Value* value = find_member(object, name);
  if (value == nullptr || !value->IsString()) return std::nullopt;
  return std::string_view(value->GetString(), value->GetStringLength());
}

std::optional<std::string> optional_string_member(const rapidjson::Value& object,
                                                  std::string_view name) {
  const auto view = string_view_member(object, name);
  return view ? std::optional<std::string>(std::string(*view)) : std::nullopt;
}

std::string string_member(const rapidjson::Value& object, std::string_view name) {
  return std::string(string_view_member(object, name).value_or(std::string_view()));
}

std::optional<std::int64_t> int64_member(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* value = find_member(object, name);
  if (value == nullptr || !value->IsInt64()) return std::nullopt;
  return value->GetInt64();
}

}  // namespace kg::json
