// POST /execute: {"command", "env"?, "timeout_ms"?, "output_limit_bytes"?, "limits"?,
// "read_file"?, "credentials"?} → the command's outcome (and, with read_file, one file of the
// workdir as it was when the command ended). With credentials, a metadata emulator serves the
// token to this command alone (metadata_emulator.hpp).
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/StreamSocket.h>
#include <rapidjson/document.h>

#include <Poco/Base64Encoder.h>

#include <optional>
#include <sstream>

#include "command_runner.hpp"
#include "command_state.hpp"
#include "file_after_command.hpp"
#include "json_reader.hpp"
#include "metadata_emulator.hpp"
#include "sandbox_routes.hpp"

namespace kg::sandbox {
namespace {

constexpr std::int64_t kMaxTimeoutMs = 3'600'000;

HttpError bad_request(const std::string& message) { return HttpError(400, message); }

rapidjson::Document parse_body(const std::string& body) {
  json::ReadJson read = json::read_json(body, json::kRequestLimits);
  if (read.refused) throw bad_request("The /execute body " + read.refused->describe());
  if (!read.document.IsObject()) {
    throw bad_request(R"(The /execute body must be a JSON object such as {"command": "ls"})");
  }
  return std::move(read.document);
}

std::string text_of(const rapidjson::Value& value) {
  return std::string(value.GetString(), value.GetStringLength());
}

std::vector<std::pair<std::string, std::string>> parse_env(const rapidjson::Value& body) {
  std::vector<std::pair<std::string, std::string>> env;
  const auto member = body.FindMember("env");
  if (member == body.MemberEnd() || member->value.IsNull()) return env;
  if (!member->value.IsObject()) {
    throw bad_request(R"("env" must be an object of strings, such as {"GOFLAGS": "-mod=mod"})");
  }
  for (const auto& [name_value, value] : member->value.GetObject()) {
    const std::string name = text_of(name_value);
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos) {
      throw bad_request("\"env\" has the invalid variable name \"" + name +
                        "\": names must be non-empty and hold no '=' or NUL");
    }
    if (!value.IsString()) throw bad_request("\"env\".\"" + name + "\" must be a string");
    std::string text = text_of(value);
    if (text.find('\0') != std::string::npos) {
      throw bad_request("\"env\".\"" + name + "\" holds a NUL byte, which no variable can hold");
    }
    env.emplace_back(name, std::move(text));
  }
  return env;
}

std::int64_t integer_member(const rapidjson::Value& body, const char* name, std::int64_t fallback,
                            std::int64_t low, std::int64_t high) {
  const auto member = body.FindMember(name);
  if (member == body.MemberEnd() || member->value.IsNull()) return fallback;
  const auto& value = member->value;
  if (!value.IsInt64() || value.GetInt64() < low || value.GetInt64() > high) {
    throw bad_request("\"" + std::string(name) + "\" must be an integer from " +
                      std::to_string(low) + " to " + std::to_string(high));
  }
  return value.GetInt64();
}

// "limits": {"cpu_seconds"?, "file_size_bytes"?, "open_files"?}: rlimits of the command.
CommandLimits parse_limits(const rapidjson::Value& body) {
  CommandLimits limits;
  const auto member = body.FindMember("limits");
  if (member == body.MemberEnd() || member->value.IsNull()) return limits;
  if (!member->value.IsObject()) {
    throw bad_request(R"("limits" must be an object such as {"cpu_seconds": 10, "open_files": 256})");
  }
  for (const auto& [name, value] : member->value.GetObject()) {
    const std::string key = text_of(name);
    if (key != "cpu_seconds" && key != "file_size_bytes" && key != "open_files") {
      throw bad_request("\"limits\" has the unknown key \"" + key +
                        "\"; known: cpu_seconds, file_size_bytes, open_files");
    }
    (void)value;
  }
  const auto& object = member->value;
  limits.cpu_seconds = static_cast<std::uint64_t>(integer_member(object, "cpu_seconds", 0, 0, 86'400));
  limits.file_size_bytes =
      static_cast<std::uint64_t>(integer_member(object, "file_size_bytes", 0, 0, INT64_MAX));
  limits.open_files = static_cast<std::uint64_t>(integer_member(object, "open_files", 0, 0, 1'048'576));
  if (limits.open_files != 0 && limits.open_files < 16) {
    throw bad_request("\"limits\".\"open_files\" must be 0 (unchanged) or at least 16: a shell "
                      "needs a few descriptors to start");
  }
  return limits;
}

struct FileRequest {
  std::string path;
  std::uint64_t max_bytes = 0;
};

// "read_file": {"path": "<relative to the workdir>", "max_bytes": N}.
std::optional<FileRequest> parse_file_request(const rapidjson::Value& body) {
  const auto member = body.FindMember("read_file");
  if (member == body.MemberEnd() || member->value.IsNull()) return std::nullopt;
  constexpr const char* kShape =
      R"("read_file" must be an object such as {"path": ".kode-gopher/result.json", "max_bytes": 262144})";
  if (!member->value.IsObject()) throw bad_request(kShape);
  const auto& object = member->value;
  const auto path = object.FindMember("path");
  if (path == object.MemberEnd() || !path->value.IsString() || path->value.GetStringLength() == 0) {
    throw bad_request(kShape);
  }
  FileRequest request;
  request.path = text_of(path->value);
  if (request.path.find('\0') != std::string::npos) {
    throw bad_request("\"read_file\".\"path\" holds a NUL byte, which no path can hold");
  }
  request.max_bytes = static_cast<std::uint64_t>(integer_member(
      object, "max_bytes", 1 << 20, 0, static_cast<std::int64_t>(kMaxFileAfterCommandBytes)));
  return request;
}

CommandRequest parse_command_request(const RouteContext& context, const rapidjson::Value& body) {
  CommandRequest request;
  const auto command = body.FindMember("command");
  if (command == body.MemberEnd() || !command->value.IsString() ||
      command->value.GetStringLength() == 0) {
    throw bad_request(R"("command" is required and must be a non-empty string, such as "ls -la")");
  }
  request.command = text_of(command->value);
  if (request.command.find('\0') != std::string::npos) {
    throw bad_request("\"command\" holds a NUL byte, which a shell command cannot hold");
  }
  request.env = parse_env(body);
  request.timeout = std::chrono::milliseconds(
      integer_member(body, "timeout_ms", 60'000, 1, kMaxTimeoutMs));
  // A larger limit than the server's cap is lowered to the cap, so clients need not know it.
  const auto cap = static_cast<std::int64_t>(context.options.stream_cap_bytes);
  request.output_limit_bytes = static_cast<std::uint64_t>(
      integer_member(body, "output_limit_bytes", cap, 0, INT64_MAX));
  request.output_limit_bytes = std::min<std::uint64_t>(request.output_limit_bytes,
                                                       context.options.stream_cap_bytes);
  request.limits = parse_limits(body);
  request.workdir = context.confinement.workdir();
  request.reap_strays = context.options.reap_strays;
  request.launcher = context.launcher.get();
  if (const auto clean = body.FindMember("clean_state"); clean != body.MemberEnd()) {
    if (!clean->value.IsBool()) throw bad_request("\"clean_state\" must be true or false");
    request.clean_state = clean->value.GetBool();
  }
  return request;
}

// The connection's socket, watched so that a client that hangs up stops its command.
int connection_socket(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  return impl == nullptr ? -1 : impl->socket().impl()->sockfd();
}

// "credentials": only for a sandbox whose loopback is its own.
std::optional<MetadataIdentity> parse_credentials(const RouteContext& context,
                                                  const rapidjson::Value& body) {
  const auto member = body.FindMember("credentials");
  if (member == body.MemberEnd() || member->value.IsNull()) return std::nullopt;
  if (context.options.shares_host_network) {
    throw bad_request(
        "\"credentials\" refused: this sandbox shares the host's network ([sandbox] network = "
        "host), so its metadata emulator would serve the token to every process on the host; "
        "use network = allowlist, egress or none for credentialed runs");
  }
  return parse_command_credentials(member->value, std::chrono::system_clock::now());
}

// Sets name=value in env, replacing an earlier value.
void set_variable(std::vector<std::pair<std::string, std::string>>& env, const std::string& name,
                  const std::string& value) {
  for (auto& [existing, old_value] : env) {
    if (existing == name) {
      old_value = value;
      return;
    }
  }
  env.emplace_back(name, value);
}

std::string base64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

void write_file(JsonWriter& writer, const FileAfterCommand& file) {
  writer.StartObject();
  writer.Key("path");
  write_text(writer, file.path);
  writer.Key("exists");
  writer.Bool(file.exists);
  if (!file.error.empty()) {
    writer.Key("error");
    write_text(writer, file.error);
  } else if (file.exists) {
    const std::string encoded = base64(file.content);
    writer.Key("content_base64");
    writer.String(encoded.data(), static_cast<rapidjson::SizeType>(encoded.size()));
  }
  writer.EndObject();
}

void write_result(JsonWriter& writer, const CommandResult& result,
                  const std::optional<FileAfterCommand>& file) {
  writer.StartObject();
  writer.Key("stdout");
  write_text(writer, result.stdout_text);
  writer.Key("stderr");
  write_text(writer, result.stderr_text);
  writer.Key("exit_code");
  writer.Int(result.exit_code);
  writer.Key("signal");
  writer.Int(result.signal);
  writer.Key("timed_out");
  writer.Bool(result.timed_out);
  writer.Key("cpu_limit_exceeded");
  writer.Bool(result.cpu_limit_exceeded);
  writer.Key("stdout_truncated");
  writer.Bool(result.stdout_truncated);
  writer.Key("stderr_truncated");
  writer.Bool(result.stderr_truncated);
  writer.Key("duration_ms");
  writer.Uint64(result.duration_ms);
  if (file) {
    writer.Key("file");
    write_file(writer, *file);
  }
  writer.EndObject();
}

}  // namespace

void serve_execute(RouteContext& context, Exchange& exchange) {
  const std::string body =
      read_body(exchange.request, context.options.max_json_bytes, "The /execute body");
  const rapidjson::Document document = parse_body(body);
  CommandRequest command = parse_command_request(context, document);
  const std::optional<FileRequest> file_request = parse_file_request(document);
  std::optional<MetadataIdentity> credentials = parse_credentials(context, document);
  if (context.egress_bridge) {
    // The proxy variables come first, so a request may still name its own NO_PROXY.
    auto env = context.egress_bridge->environment();
    for (const auto& [name, value] : command.env) set_variable(env, name, value);
    command.env = std::move(env);
  }
  command.cancel_watch_fd = connection_socket(exchange.request);
  CommandResult result;
  std::optional<FileAfterCommand> file;
  {
    const std::lock_guard one_command_at_a_time(context.execute_mutex);
    if (command.clean_state) {
      prepare_clean_state(context.options);
    } else {
      link_persist_folder(context.options);
    }
    // Lives exactly as long as the command: no later command sees the token.
    std::optional<MetadataEmulator> metadata;
    if (credentials) {
      metadata.emplace(std::move(*credentials));
      for (const auto& [name, value] : metadata->environment()) {
        set_variable(command.env, name, value);
      }
    }
    result = run_command(command);
    metadata.reset();
    // Still under the lock: no other command can change the file in between.
    if (file_request && !result.cancelled) {
      file = read_file_after_command(context.confinement, file_request->path, file_request->max_bytes);
    }
  }
  if (result.cancelled) {
    context.logger.log(log::LogLevel::info, "The client hung up: command killed");
  }
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  write_result(writer, result, file);
  send_json(exchange.response, buffer);
}

}  // namespace kg::sandbox
