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

// "limits": {"memory_bytes"?, "pids"?, "cpu_seconds"?, "file_size_bytes"?, "open_files"?,
// "output_bytes"?}: the
// call's own limits, each a positive integer (checked against the daemon's maxima later).
session::RequestedLimits parse_limits(const rapidjson::Value& object) {
  session::RequestedLimits limits;
  const auto it = object.FindMember("limits");
  if (it == object.MemberEnd() || it->value.IsNull()) return limits;
  if (!it->value.IsObject()) {
    throw BadRequestError(R"("limits" must be an object such as {"memory_bytes": 268435456})");
  }
  for (const auto& member : it->value.GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    const auto& value = member.value;
    if (!value.IsUint64()) {
      throw BadRequestError("\"limits\".\"" + name + "\" must be a positive integer");
    }
    const auto number = value.GetUint64();
    const auto small = [&]() -> std::uint32_t {
      if (number > 0xffffffffu) {
        throw BadRequestError("\"limits\".\"" + name + "\" is too large");
      }
      return static_cast<std::uint32_t>(number);
    };
    if (name == "memory_bytes") {
      limits.memory_bytes = number;
    } else if (name == "pids") {
      limits.pids = small();
    } else if (name == "cpu_seconds") {
      limits.cpu_seconds = small();
    } else if (name == "file_size_bytes") {
      limits.file_size_bytes = number;
    } else if (name == "open_files") {
      limits.open_files = small();
    } else if (name == "output_bytes") {
      limits.output_bytes = number;
    } else {
      throw BadRequestError("\"limits\" has the unknown key \"" + name +
                            "\"; known: memory_bytes, pids, cpu_seconds, file_size_bytes, "
                            "open_files, output_bytes (and timeout_ms at the top level)");
    }
  }
  return limits;
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
  parsed.call.limits = parse_limits(doc);
  parsed.call.runtime = string_member(doc, "runtime");
  parsed.client = string_member(doc, "client");
  return parsed;
}

}  // namespace kg::api
