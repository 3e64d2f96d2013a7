#include "execute_request.hpp"

#include <cstdint>

#include "json_text.hpp"
#include "malformed_message.hpp"
#include "utc_time.hpp"

namespace kg::wire::sandbox_api {
namespace {

// --- writing -------------------------------------------------------------------------------

void write_limits(JsonWriter& writer, const ExecuteLimits& limits) {
  writer.Key("limits");
  writer.StartObject();
  writer.Key("cpu_seconds");
  writer.Uint64(limits.cpu_seconds);
  writer.Key("file_size_bytes");
  writer.Uint64(limits.file_size_bytes);
  writer.Key("open_files");
  writer.Uint64(limits.open_files);
  writer.EndObject();
}

void write_read_file(JsonWriter& writer, const ReadFileRequest& read_file) {
  writer.Key("read_file");
  writer.StartObject();
  writer.Key("path");
  write_bytes(writer, read_file.path);
  writer.Key("max_bytes");
  writer.Uint64(read_file.max_bytes);
  writer.EndObject();
}

// Unknown optional members are left out rather than sent empty.
void write_credentials(JsonWriter& writer, const ExecuteCredentials& credentials) {
  writer.Key("credentials");
  writer.StartObject();
  writer.Key("access_token");
  write_bytes(writer, credentials.access_token);
  writer.Key("expiry");
  write_bytes(writer, credentials.expiry);
  const std::pair<const char*, const std::string*> optional_members[] = {
      {"email", &credentials.email},
      {"project", &credentials.project},
      {"quota_project", &credentials.quota_project}};
  for (const auto& [key, value] : optional_members) {
    if (value->empty()) continue;
    writer.Key(key);
    write_bytes(writer, *value);
  }
  writer.EndObject();
}

void write_prestart(JsonWriter& writer, const std::vector<std::string>& arguments) {
  writer.Key("prestart");
  writer.StartObject();
  writer.Key("arguments");
  writer.StartArray();
  for (const auto& argument : arguments) write_bytes(writer, argument);
  writer.EndArray();
  writer.EndObject();
}

// --- reading -------------------------------------------------------------------------------

MalformedMessage bad(const std::string& message) { return MalformedMessage(message); }

std::int64_t integer_member(const rapidjson::Value& object, const char* name,
                            std::int64_t fallback, std::int64_t low, std::int64_t high) {
  const rapidjson::Value* value = given(object, name);
  if (value == nullptr) return fallback;
  if (!value->IsInt64() || value->GetInt64() < low || value->GetInt64() > high) {
    throw bad("\"" + std::string(name) + "\" must be an integer from " + std::to_string(low) +
              " to " + std::to_string(high));
  }
  return value->GetInt64();
}

std::string read_command(const rapidjson::Value& body) {
  const auto command = body.FindMember("command");
  if (command == body.MemberEnd() || !command->value.IsString() ||
      command->value.GetStringLength() == 0) {
    throw bad(R"("command" is required and must be a non-empty string, such as "ls -la")");
  }
  std::string text = string_of(command->value);
  if (text.find('\0') != std::string::npos) {
    throw bad("\"command\" holds a NUL byte, which a shell command cannot hold");
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> read_env(const rapidjson::Value& body) {
  std::vector<std::pair<std::string, std::string>> env;
  const rapidjson::Value* object = given(body, "env");
  if (object == nullptr) return env;
  if (!object->IsObject()) {
    throw bad(R"("env" must be an object of strings, such as {"GOFLAGS": "-mod=mod"})");
  }
  for (const auto& [name_value, value] : object->GetObject()) {
    const std::string name = string_of(name_value);
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos) {
      throw bad("\"env\" has the invalid variable name \"" + name +
                "\": names must be non-empty and hold no '=' or NUL");
    }
    if (!value.IsString()) throw bad("\"env\".\"" + name + "\" must be a string");
    std::string text = string_of(value);
    if (text.find('\0') != std::string::npos) {
      throw bad("\"env\".\"" + name + "\" holds a NUL byte, which no variable can hold");
    }
    env.emplace_back(name, std::move(text));
  }
  return env;
}

ExecuteLimits read_limits(const rapidjson::Value& body) {
  ExecuteLimits limits;
  const rapidjson::Value* object = given(body, "limits");
  if (object == nullptr) return limits;
  if (!object->IsObject()) {
    throw bad(R"("limits" must be an object such as {"cpu_seconds": 10, "open_files": 256})");
  }
  for (const auto& member : object->GetObject()) {
    const std::string key = string_of(member.name);
    if (key != "cpu_seconds" && key != "file_size_bytes" && key != "open_files") {
      throw bad("\"limits\" has the unknown key \"" + key +
                "\"; known: cpu_seconds, file_size_bytes, open_files");
    }
  }
  limits.cpu_seconds = static_cast<std::uint64_t>(integer_member(*object, "cpu_seconds", 0, 0, 86'400));
  limits.file_size_bytes =
      static_cast<std::uint64_t>(integer_member(*object, "file_size_bytes", 0, 0, INT64_MAX));
  limits.open_files =
      static_cast<std::uint64_t>(integer_member(*object, "open_files", 0, 0, 1'048'576));
  if (limits.open_files != 0 && limits.open_files < 16) {
    throw bad("\"limits\".\"open_files\" must be 0 (unchanged) or at least 16: a shell "
              "needs a few descriptors to start");
  }
  return limits;
}

bool read_clean_state(const rapidjson::Value& body) {
  const auto clean = body.FindMember("clean_state");
  if (clean == body.MemberEnd()) return false;
  if (!clean->value.IsBool()) throw bad("\"clean_state\" must be true or false");
  return clean->value.GetBool();
}

std::optional<ReadFileRequest> read_read_file(const rapidjson::Value& body) {
  const rapidjson::Value* object = given(body, "read_file");
  if (object == nullptr) return std::nullopt;
  constexpr const char* kShape =
      R"("read_file" must be an object such as {"path": ".kode-gopher/result.json", "max_bytes": 262144})";
  if (!object->IsObject()) throw bad(kShape);
  const auto path = object->FindMember("path");
  if (path == object->MemberEnd() || !path->value.IsString() || path->value.GetStringLength() == 0) {
    throw bad(kShape);
  }
  ReadFileRequest request;
  request.path = string_of(path->value);
  if (request.path.find('\0') != std::string::npos) {
    throw bad("\"read_file\".\"path\" holds a NUL byte, which no path can hold");
  }
  request.max_bytes = static_cast<std::uint64_t>(
      integer_member(*object, "max_bytes", static_cast<std::int64_t>(kDefaultReadFileBytes), 0,
                     static_cast<std::int64_t>(kMaxReadFileBytes)));
  return request;
}

MalformedMessage bad_credentials(const std::string& message) {
  return MalformedMessage("\"credentials\": " + message);
}

// Values end up in HTTP answers and environment variables: printable ASCII only.
std::string credential_text(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = given(object, name);
  if (value == nullptr) return {};
  if (!value->IsString()) throw bad_credentials("\"" + std::string(name) + "\" must be a string");
  std::string text = string_of(*value);
  for (const char c : text) {
    if (c < 0x21 || c > 0x7e) {
      throw bad_credentials("\"" + std::string(name) + "\" holds a space or control character");
    }
  }
  return text;
}

std::optional<ExecuteCredentials> read_credentials(const rapidjson::Value& body) {
  const rapidjson::Value* object = given(body, "credentials");
  if (object == nullptr) return std::nullopt;
  if (!object->IsObject()) {
    throw bad(R"("credentials" must be an object such as {"access_token": "ya29...", "expiry": )"
              R"("2026-12-03T09:00:00Z", "email": "me@example.com", "project": "my-project"})");
  }
  for (const auto& member : object->GetObject()) {
    const std::string key = string_of(member.name);
    if (key != "access_token" && key != "expiry" && key != "email" && key != "project" &&
        key != "quota_project") {
      throw bad_credentials("unknown key \"" + key +
                            "\"; known: access_token, expiry, email, project, quota_project "
                            "(only a short-lived access token may enter a sandbox)");
    }
  }
  ExecuteCredentials credentials;
  credentials.access_token = credential_text(*object, "access_token");
  if (credentials.access_token.empty()) {
    throw bad_credentials("\"access_token\" is empty or missing: mint a token on the host first");
  }
  credentials.expiry = credential_text(*object, "expiry");
  if (credentials.expiry.empty()) {
    throw bad_credentials("\"expiry\" is required (RFC 3339, e.g. 2026-12-03T09:00:00Z)");
  }
  if (!utc::parse_rfc3339(credentials.expiry)) {
    throw bad_credentials("\"expiry\" must be an RFC 3339 time such as 2026-12-03T09:00:00Z, got \"" +
                          credentials.expiry.substr(0, 64) + "\"");
  }
  credentials.email = credential_text(*object, "email");
  credentials.project = credential_text(*object, "project");
  credentials.quota_project = credential_text(*object, "quota_project");
  return credentials;
}

std::optional<std::vector<std::string>> read_prestart(const rapidjson::Value& body) {
  const rapidjson::Value* object = given(body, "prestart");
  if (object == nullptr) return std::nullopt;
  constexpr const char* kShape =
      R"("prestart" must be an object such as {"arguments": ["--auto", "/app"]})";
  if (!object->IsObject()) throw bad(kShape);
  for (const auto& member : object->GetObject()) {
    if (string_of(member.name) != "arguments") {
      throw bad("\"prestart\" has the unknown key \"" + string_of(member.name) +
                "\"; known: arguments");
    }
  }
  const rapidjson::Value* arguments = given(*object, "arguments");
  if (arguments == nullptr || !arguments->IsArray()) throw bad(kShape);
  std::vector<std::string> texts;
  for (const auto& argument : arguments->GetArray()) {
    if (!argument.IsString()) throw bad("\"prestart\".\"arguments\" must hold strings only");
    std::string text = string_of(argument);
    if (text.empty() || text.find('\0') != std::string::npos) {
      throw bad("\"prestart\".\"arguments\" holds an empty argument or a NUL byte, which the "
                "call on stdin cannot carry (entries end at NUL; an empty one ends the list)");
    }
    texts.push_back(std::move(text));
  }
  return texts;
}

}  // namespace

std::string encode_execute_request(const ExecuteRequest& request) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("command");
  write_bytes(writer, request.command);
  writer.Key("timeout_ms");
  writer.Uint64(request.timeout_ms);
  if (request.output_limit_bytes) {
    writer.Key("output_limit_bytes");
    writer.Uint64(*request.output_limit_bytes);
  }
  if (request.clean_state) {
    writer.Key("clean_state");
    writer.Bool(true);
  }
  write_limits(writer, request.limits);
  if (request.read_file) write_read_file(writer, *request.read_file);
  if (request.credentials) write_credentials(writer, *request.credentials);
  if (request.prestart_arguments) write_prestart(writer, *request.prestart_arguments);
  if (request.stream) write_stream_request(writer, *request.stream);
  writer.Key("env");
  writer.StartObject();
  for (const auto& [name, value] : request.env) {
    writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    write_bytes(writer, value);
  }
  writer.EndObject();
  writer.EndObject();
  return text_of(buffer);
}

ExecuteRequest decode_execute_request(std::string_view body) {
  json::ReadJson read = json::read_json(body, json::kRequestLimits);
  if (read.refused) throw bad("The /execute body " + read.refused->describe());
  const rapidjson::Value& document = read.document;
  if (!document.IsObject()) {
    throw bad(R"(The /execute body must be a JSON object such as {"command": "ls"})");
  }
  ExecuteRequest request;
  request.command = read_command(document);
  request.env = read_env(document);
  request.timeout_ms = static_cast<std::uint64_t>(
      integer_member(document, "timeout_ms", static_cast<std::int64_t>(kDefaultTimeoutMs), 1,
                     static_cast<std::int64_t>(kMaxTimeoutMs)));
  if (given(document, "output_limit_bytes") != nullptr) {
    request.output_limit_bytes =
        static_cast<std::uint64_t>(integer_member(document, "output_limit_bytes", 0, 0, INT64_MAX));
  }
  request.limits = read_limits(document);
  request.clean_state = read_clean_state(document);
  request.read_file = read_read_file(document);
  request.credentials = read_credentials(document);
  request.prestart_arguments = read_prestart(document);
  request.stream = read_stream_request(document);
  return request;
}

}  // namespace kg::wire::sandbox_api
