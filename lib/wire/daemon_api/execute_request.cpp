#include "execute_request.hpp"

#include "api_policy_names.hpp"
#include "json_fields.hpp"
#include "malformed_message.hpp"

namespace kg::wire::daemon_api {
namespace {

bool any_limit(const ExecuteLimits& limits) { return limits != ExecuteLimits{}; }

void write_limits(JsonWriter& writer, const ExecuteLimits& limits) {
  writer.Key("limits");
  writer.StartObject();
  const auto write = [&](const char* name, const auto& value) {
    if (!value) return;
    writer.Key(name);
    writer.Uint64(*value);
  };
  write("memory_bytes", limits.memory_bytes);
  write("pids", limits.pids);
  write("cpu_seconds", limits.cpu_seconds);
  write("file_size_bytes", limits.file_size_bytes);
  write("open_files", limits.open_files);
  write("output_bytes", limits.output_bytes);
  writer.EndObject();
}

std::optional<std::string> optional_string(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = given(object, name);
  if (value == nullptr) return std::nullopt;
  if (!value->IsString()) throw MalformedMessage(std::string("\"") + name + "\" must be a string");
  return string_of(*value);
}

void read_program(const rapidjson::Value& object, ExecuteRequest& request) {
  const rapidjson::Value* code = given(object, "code");
  const rapidjson::Value* files = given(object, "files");
  if ((code == nullptr) == (files == nullptr)) {
    throw MalformedMessage("send exactly one of \"code\" (a string) or \"files\" (an object)");
  }
  if (code != nullptr) {
    if (!code->IsString()) throw MalformedMessage("\"code\" must be a string");
    request.code = string_of(*code);
    return;
  }
  if (!files->IsObject()) {
    throw MalformedMessage("\"files\" must be an object mapping paths to sources");
  }
  if (files->MemberCount() == 0) throw MalformedMessage("\"files\" is empty");
  for (const auto& member : files->GetObject()) {
    std::string path = string_of(member.name);
    if (!member.value.IsString()) {
      throw MalformedMessage("\"files\"[\"" + path + "\"] must be a string");
    }
    request.files.emplace_back(std::move(path), string_of(member.value));
  }
}

std::optional<std::vector<std::string>> read_extra_imports(const rapidjson::Value& object) {
  const rapidjson::Value* value = given(object, "extra_imports");
  if (value == nullptr) return std::nullopt;
  constexpr const char* kShape = "\"extra_imports\" must be an array of strings";
  if (!value->IsArray()) throw MalformedMessage(kShape);
  std::vector<std::string> paths;
  for (const auto& item : value->GetArray()) {
    if (!item.IsString()) throw MalformedMessage(kShape);
    paths.push_back(string_of(item));
  }
  return paths;
}

std::optional<std::uint32_t> read_timeout(const rapidjson::Value& object) {
  const rapidjson::Value* value = given(object, "timeout_ms");
  if (value == nullptr) return std::nullopt;
  if (!value->IsUint()) throw MalformedMessage("\"timeout_ms\" must be a positive integer");
  return value->GetUint();
}

// Each a positive integer; pids, cpu_seconds and open_files fit in 32 bits.
ExecuteLimits read_limits(const rapidjson::Value& object) {
  ExecuteLimits limits;
  const rapidjson::Value* value = given(object, "limits");
  if (value == nullptr) return limits;
  if (!value->IsObject()) {
    throw MalformedMessage(R"("limits" must be an object such as {"memory_bytes": 268435456})");
  }
  for (const auto& member : value->GetObject()) {
    const std::string name = string_of(member.name);
    if (!member.value.IsUint64()) {
      throw MalformedMessage("\"limits\".\"" + name + "\" must be a positive integer");
    }
    const std::uint64_t number = member.value.GetUint64();
    const auto small = [&]() -> std::uint32_t {
      if (number > 0xffffffffu) throw MalformedMessage("\"limits\".\"" + name + "\" is too large");
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
      throw MalformedMessage("\"limits\" has the unknown key \"" + name +
                             "\"; known: memory_bytes, pids, cpu_seconds, file_size_bytes, "
                             "open_files, output_bytes (and timeout_ms at the top level)");
    }
  }
  return limits;
}

void write_names(JsonWriter& writer, const char* key,
                 const std::optional<std::vector<std::string>>& names) {
  if (!names) return;
  writer.Key(key);
  writer.StartArray();
  for (const std::string& name : *names) write_bytes(writer, name);
  writer.EndArray();
}

void write_api_policy(JsonWriter& writer, const ExecuteApiPolicy& policy) {
  writer.Key("api_policy");
  writer.StartObject();
  if (policy.read_only) {
    writer.Key("read_only");
    writer.Bool(*policy.read_only);
  }
  write_names(writer, "projects", policy.projects);
  write_names(writer, "buckets", policy.buckets);
  writer.EndObject();
}

std::optional<std::vector<std::string>> read_names(const rapidjson::Value& policy,
                                                   const char* key) {
  const rapidjson::Value* value = given(policy, key);
  if (value == nullptr) return std::nullopt;
  const std::string shape = std::string("\"api_policy\".\"") + key +
                            "\" must be an array of strings such as [\"my-" +
                            (std::string_view(key) == "projects" ? "project" : "bucket") + "\"]";
  if (!value->IsArray()) throw MalformedMessage(shape);
  std::vector<std::string> names;
  for (const auto& item : value->GetArray()) {
    if (!item.IsString()) throw MalformedMessage(shape);
    names.push_back(string_of(item));
  }
  return names;
}

ExecuteApiPolicy read_api_policy(const rapidjson::Value& object) {
  const rapidjson::Value* value = given(object, "api_policy");
  if (value == nullptr) return {};
  return decode_api_policy(*value);
}

}  // namespace

ExecuteApiPolicy decode_api_policy(const rapidjson::Value& value_ref) {
  ExecuteApiPolicy policy;
  const rapidjson::Value* value = &value_ref;
  if (!value->IsObject()) {
    throw MalformedMessage(
        R"("api_policy" must be an object such as {"read_only": true, "projects": ["my-project"]})");
  }
  for (const auto& member : value->GetObject()) {
    const std::string name = string_of(member.name);
    if (name != "read_only" && name != "projects" && name != "buckets") {
      throw MalformedMessage("\"api_policy\" has the unknown key \"" + name +
                             "\"; known: read_only, projects, buckets");
    }
  }
  if (const rapidjson::Value* read_only = given(*value, "read_only")) {
    if (!read_only->IsBool()) throw MalformedMessage("\"api_policy\".\"read_only\" must be true or false");
    policy.read_only = read_only->GetBool();
  }
  policy.projects = read_names(*value, "projects");
  policy.buckets = read_names(*value, "buckets");
  if (auto problem = api_policy_problem(policy)) throw MalformedMessage(*problem);
  return policy;
}

std::optional<std::string> api_policy_problem(const ExecuteApiPolicy& policy) {
  const auto check = [](const char* key, const std::optional<std::vector<std::string>>& names,
                        auto problem_of) -> std::optional<std::string> {
    if (!names) return std::nullopt;
    const std::string where = std::string("\"api_policy\".\"") + key + "\"";
    if (names->empty()) {
      return where + " is empty; name at least one, or leave it out to keep the daemon's";
    }
    for (const std::string& name : *names) {
      if (auto problem = problem_of(name)) return where + ": " + *problem;
    }
    return std::nullopt;
  };
  if (auto problem = check("projects", policy.projects, project_name_problem)) return problem;
  return check("buckets", policy.buckets, bucket_name_problem);
}

std::string encode_execute_request(const ExecuteRequest& request) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  if (request.code) {
    writer.Key("code");
    write_bytes(writer, *request.code);
  } else {
    writer.Key("files");
    writer.StartObject();
    for (const auto& [path, content] : request.files) {
      writer.Key(path.data(), static_cast<rapidjson::SizeType>(path.size()));
      write_bytes(writer, content);
    }
    writer.EndObject();
  }
  if (request.extra_imports) {
    writer.Key("extra_imports");
    writer.StartArray();
    for (const std::string& path : *request.extra_imports) write_bytes(writer, path);
    writer.EndArray();
  }
  if (request.runtime) {
    writer.Key("runtime");
    write_bytes(writer, *request.runtime);
  }
  if (request.timeout_ms) {
    writer.Key("timeout_ms");
    writer.Uint(*request.timeout_ms);
  }
  if (any_limit(request.limits)) write_limits(writer, request.limits);
  if (request.client) {
    writer.Key("client");
    write_bytes(writer, *request.client);
  }
  if (!request.api_policy.empty()) write_api_policy(writer, request.api_policy);
  if (request.action) {
    writer.Key("action");
    write_bytes(writer, *request.action);
  }
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

ExecuteRequest decode_execute_request(const rapidjson::Value& object) {
  if (!object.IsObject()) throw MalformedMessage("the request body must be a JSON object");
  ExecuteRequest request;
  read_program(object, request);
  request.extra_imports = read_extra_imports(object);
  request.timeout_ms = read_timeout(object);
  request.limits = read_limits(object);
  request.runtime = optional_string(object, "runtime");
  request.client = optional_string(object, "client");
  request.api_policy = read_api_policy(object);
  request.action = optional_string(object, "action");
  if (request.action) {
    if (auto problem = action_problem(*request.action)) throw MalformedMessage(*problem);
  }
  return request;
}

void check_execute_request(const ExecuteRequest& request) {
  if (request.code.has_value() == !request.files.empty()) {
    throw MalformedMessage("send exactly one of \"code\" (a string) or \"files\" (an object)");
  }
  if (auto problem = api_policy_problem(request.api_policy)) throw MalformedMessage(*problem);
  if (request.action) {
    if (auto problem = action_problem(*request.action)) throw MalformedMessage(*problem);
  }
}

std::optional<std::string> action_problem(std::string_view action) {
  if (action == "run" || action == "test" || action == "vet") return std::nullopt;
  return "\"action\" must be \"run\" (run the program), \"test\" (go test: run the *_test.go "
         "files' tests) or \"vet\" (go vet), not \"" + std::string(action.substr(0, 40)) + "\"";
}

}  // namespace kg::wire::daemon_api
