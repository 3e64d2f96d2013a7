#include "execute_request_parser.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "api_errors.hpp"
#include "json_body.hpp"

namespace kg::api {
namespace {

std::string string_member(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || it->value.IsNull()) return {};
  if (!it->value.IsString()) throw BadRequestError(std::string("\"") + key + "\" must be a string");
  return {it->value.GetString(), it->value.GetStringLength()};
}

}  // namespace

ParsedExecute parse_execute_request(std::string_view body) {
  const auto doc = parse_json_object(body);
  ParsedExecute parsed;
  auto& execute = parsed.call.execute;
  const auto code = doc.FindMember("code");
  const auto files = doc.FindMember("files");
  const bool has_code = code != doc.MemberEnd() && !code->value.IsNull();
  const bool has_files = files != doc.MemberEnd() && !files->value.IsNull();
  if (has_code == has_files) {
    throw BadRequestError("send exactly one of \"code\" (a string) or \"files\" (an object)");
  }
  if (has_code) {
    if (!code->value.IsString()) throw BadRequestError("\"code\" must be a string");
    execute.files.push_back({"main.go", {code->value.GetString(), code->value.GetStringLength()}});
  } else {
    if (!files->value.IsObject()) {
      throw BadRequestError("\"files\" must be an object mapping paths to sources");
    }
    if (files->value.MemberCount() == 0) throw BadRequestError("\"files\" is empty");
    for (const auto& member : files->value.GetObject()) {
      const std::string path(member.name.GetString(), member.name.GetStringLength());
      if (!member.value.IsString()) {
        throw BadRequestError("\"files\"[\"" + path + "\"] must be a string");
      }
      execute.files.push_back({path, {member.value.GetString(), member.value.GetStringLength()}});
    }
  }
  if (auto it = doc.FindMember("extra_imports"); it != doc.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsArray()) throw BadRequestError("\"extra_imports\" must be an array of strings");
    for (const auto& item : it->value.GetArray()) {
      if (!item.IsString()) throw BadRequestError("\"extra_imports\" must be an array of strings");
      execute.extra_imports.emplace_back(item.GetString(), item.GetStringLength());
    }
  }
  if (auto it = doc.FindMember("timeout_ms"); it != doc.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsUint()) throw BadRequestError("\"timeout_ms\" must be a positive integer");
    parsed.call.timeout_ms = it->value.GetUint();
  }
  parsed.call.runtime = string_member(doc, "runtime");
  parsed.client = string_member(doc, "client");
  return parsed;
}

}  // namespace kg::api
