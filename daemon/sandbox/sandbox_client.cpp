#include "sandbox_client.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <Poco/Base64Decoder.h>
#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <sstream>

#include "json_reader.hpp"
#include "error_chain.hpp"
#include "tar_builder.hpp"
#include "utf8_text.hpp"

namespace kg::sandbox {
namespace {

using plugin::SandboxError;

// Whatever a sandbox answers is hostile: its JSON is read without recursion and within the
// depth bound, and every string taken from it is valid UTF-8 (lib/json).

// The sandbox answers errors as {"detail": ...} (ours) or {"message": ...} (other runtimes).
std::string error_text(const net::HttpResponse& response) {
  const auto parsed = json::read_json(response.body, json::kSandboxOutputLimits);
  const auto& doc = parsed.document;
  if (doc.IsObject()) {
    for (const char* key : {"detail", "message"}) {
      auto it = doc.FindMember(key);
      if (it != doc.MemberEnd() && it->value.IsString()) {
        return {it->value.GetString(), it->value.GetStringLength()};
      }
    }
  }
  const std::string_view body = response.body;
  const auto shown = body.substr(0, json::utf8_boundary_before(body, 200));
  return "HTTP " + std::to_string(response.status) + ": " + json::to_valid_utf8(shown);
}

rapidjson::Document parse_json(const net::HttpResponse& response, std::string_view what) {
  auto parsed = json::read_json(response.body, json::kSandboxOutputLimits);
  if (parsed.refused) {
    throw SandboxError(std::string(what) + ": the sandbox's answer " + parsed.refused->describe());
  }
  if (!parsed.document.IsObject()) {
    throw SandboxError(std::string(what) + ": the sandbox's answer is not a JSON object");
  }
  return std::move(parsed.document);
}

std::string decode_base64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
  } catch (const Poco::Exception& e) {
    throw SandboxError("the sandbox sent it as invalid base64: " + e.displayText());
  }
  return bytes;
}

// The "file" member of an /execute answer: the file read_file asked for, as the command left it.
std::optional<plugin::FileAfterCommand> file_after(const rapidjson::Value& answer) {
  const auto member = answer.FindMember("file");
  if (member == answer.MemberEnd() || !member->value.IsObject()) return std::nullopt;
  const auto& file = member->value;
  plugin::FileAfterCommand read;
  auto exists = file.FindMember("exists");
  read.exists = exists != file.MemberEnd() && exists->value.IsBool() && exists->value.GetBool();
  auto error = file.FindMember("error");
  if (error != file.MemberEnd() && error->value.IsString()) {
    read.error.assign(error->value.GetString(), error->value.GetStringLength());
  }
  auto content = file.FindMember("content_base64");
  if (content != file.MemberEnd() && content->value.IsString()) {
    // A bad file is this file's problem, reported with it; the command's outcome stands.
    try {
      read.content = decode_base64(std::string(content->value.GetString(), content->value.GetStringLength()));
    } catch (const SandboxError& e) {
      read.error = e.what();
    }
  }
  return read;
}

std::string encode_path(std::string_view path) {
  std::string encoded;
  Poco::URI::encode(std::string(path), "/?#%&=+ ", encoded);
  // The contract sends '/' as %2F inside the path segment.
  std::string out;
  for (char c : encoded) out += (c == '/') ? std::string("%2F") : std::string(1, c);
  return out;
}

void write_string(rapidjson::Writer<rapidjson::StringBuffer>& writer, const std::string& text) {
  writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
}

// docs/contracts.md §1: "credentials": {"access_token", "expiry" (RFC 3339), "email"?, "project"?,
// "quota_project"?}; unknown members are left out rather than sent empty.
void write_credentials(rapidjson::Writer<rapidjson::StringBuffer>& writer,
                       const plugin::CommandCredentials& credentials) {
  writer.Key("credentials");
  writer.StartObject();
  writer.Key("access_token");
  write_string(writer, credentials.access_token);
  writer.Key("expiry");
  write_string(writer, credentials.expiry_rfc3339);
  const std::pair<const char*, const std::string*> optional_members[] = {
      {"email", &credentials.email},
      {"project", &credentials.project},
      {"quota_project", &credentials.quota_project}};
  for (const auto& [key, value] : optional_members) {
    if (value->empty()) continue;
    writer.Key(key);
    write_string(writer, *value);
  }
  writer.EndObject();
}

}  // namespace

bool SandboxClient::healthy(std::chrono::milliseconds timeout) const noexcept {
  try {
    net::HttpRequestOptions options;
    options.timeout = timeout;
    const auto response = http_->request("GET", "/", {}, options);
    return response.status == 200 && response.body.find("\"ok\"") != std::string::npos;
  } catch (...) {
    return false;
  }
}

net::HttpResponse SandboxClient::call(std::string_view method, std::string_view target,
                                      std::string_view body,
                                      const net::HttpRequestOptions& options,
                                      std::string_view what) const {
  try {
    return http_->request(method, target, body, options);
  } catch (const net::HttpTransportError&) {
    std::throw_with_nested(SandboxError(std::string(what) + " failed"));
  }
}

void SandboxClient::upload_tar(std::span<const plugin::SourceFile> files, bool replace) {
  const std::string tar = build_tar(files);
  net::HttpRequestOptions options;
  options.content_type = "application/x-tar";
  options.timeout = std::chrono::seconds(120);
  const auto response = call("POST", replace ? "/upload-tar?replace=1" : "/upload-tar", tar,
                             options, "Uploading the program");
  if (response.status != 200) {
    throw SandboxError("Uploading the program failed: " + error_text(response));
  }
}

void SandboxClient::replace_workdir(std::span<const plugin::SourceFile> files) {
  upload_tar(files, true);
}

void SandboxClient::upload_files(std::span<const plugin::SourceFile> files) {
  upload_tar(files, false);
}

plugin::CommandOutcome SandboxClient::run_command(const plugin::CommandSpec& spec,
                                                  net::RequestCanceller* canceller) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("command");
  writer.String(spec.command.c_str(), static_cast<rapidjson::SizeType>(spec.command.size()));
  writer.Key("timeout_ms");
  writer.Uint(spec.timeout_ms);
  writer.Key("output_limit_bytes");
  writer.Uint64(spec.output_limit_bytes);
  if (spec.clean_state) {
    writer.Key("clean_state");
    writer.Bool(true);
  }
  writer.Key("limits");
  writer.StartObject();
  writer.Key("cpu_seconds");
  writer.Uint(spec.resources.cpu_seconds);
  writer.Key("file_size_bytes");
  writer.Uint64(spec.resources.file_size_bytes);
  writer.Key("open_files");
  writer.Uint(spec.resources.open_files);
  writer.EndObject();
  if (spec.read_file_after) {
    writer.Key("read_file");
    writer.StartObject();
    writer.Key("path");
    writer.String(spec.read_file_after->path.c_str(),
                  static_cast<rapidjson::SizeType>(spec.read_file_after->path.size()));
    writer.Key("max_bytes");
    writer.Uint64(spec.read_file_after->max_bytes);
    writer.EndObject();
  }
  if (spec.credentials) write_credentials(writer, *spec.credentials);
  writer.Key("env");
  writer.StartObject();
  for (const auto& [name, value] : spec.env) {
    writer.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
    writer.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
  }
  writer.EndObject();
  writer.EndObject();

  net::HttpRequestOptions options;
  // Headers arrive only when the command ends: wait for the command's own limit plus slack.
  options.timeout = std::chrono::milliseconds(spec.timeout_ms) + std::chrono::seconds(30);
  // Both streams at their cap, and JSON may spell each control byte as \u00XX (6 bytes).
  options.max_response_bytes = 2 * 6 * spec.output_limit_bytes + (1 << 20);
  // The file comes as base64: 4 bytes for every 3.
  if (spec.read_file_after) options.max_response_bytes += spec.read_file_after->max_bytes / 3 * 4 + 4;
  options.canceller = canceller;
  const auto response = call("POST", "/execute", buffer.GetString(), options, "Running a command");
  if (response.status != 200) {
    throw SandboxError("Running a command failed: " + error_text(response));
  }
  const auto doc = parse_json(response, "Running a command");
  plugin::CommandOutcome outcome;
  auto text = [&](const char* key) {
    auto it = doc.FindMember(key);
    return (it != doc.MemberEnd() && it->value.IsString())
               ? std::string(it->value.GetString(), it->value.GetStringLength())
               : std::string();
  };
  auto integer = [&](const char* key) {
    auto it = doc.FindMember(key);
    return (it != doc.MemberEnd() && it->value.IsInt64()) ? it->value.GetInt64() : 0;
  };
  auto flag = [&](const char* key) {
    auto it = doc.FindMember(key);
    return it != doc.MemberEnd() && it->value.IsBool() && it->value.GetBool();
  };
  outcome.stdout_text = text("stdout");
  outcome.stderr_text = text("stderr");
  outcome.exit_code = static_cast<int>(integer("exit_code"));
  outcome.signal = static_cast<int>(integer("signal"));
  outcome.timed_out = flag("timed_out");
  outcome.cpu_limit_exceeded = flag("cpu_limit_exceeded");
  outcome.stdout_truncated = flag("stdout_truncated");
  outcome.stderr_truncated = flag("stderr_truncated");
  outcome.duration_ms = static_cast<std::uint64_t>(integer("duration_ms"));
  if (spec.read_file_after) {
    outcome.file_after = file_after(doc);
    // A sandbox without the read_file extension: one more round trip.
    if (!outcome.file_after) outcome.file_after = read_file_separately(*spec.read_file_after);
  }
  return outcome;
}

plugin::FileAfterCommand SandboxClient::read_file_separately(const plugin::FileReadRequest& request) {
  plugin::FileAfterCommand read;
  try {
    auto content = read_file(request.path, request.max_bytes);
    read.exists = content.has_value();
    if (content) read.content = std::move(*content);
  } catch (const SandboxError& e) {
    read.exists = true;
    read.error = describe_error_chain(e);
  }
  return read;
}

std::optional<std::string> SandboxClient::read_file(std::string_view path,
                                                    std::uint64_t max_bytes) {
  net::HttpRequestOptions options;
  options.max_response_bytes = max_bytes;
  const std::string what = "Reading " + std::string(path);
  net::HttpResponse response;
  try {
    response = http_->request("GET", "/download/" + encode_path(path), {}, options);
  } catch (const net::HttpTransportError& e) {
    if (!e.connect_failed() && std::string_view(e.what()).find("larger than") != std::string_view::npos) {
      throw SandboxError(what + ": the file is larger than " + std::to_string(max_bytes) + " bytes");
    }
    std::throw_with_nested(SandboxError(what + " failed"));
  }
  if (response.status == 404) return std::nullopt;
  if (response.status != 200) throw SandboxError(what + " failed: " + error_text(response));
  return std::move(response.body);
}

}  // namespace kg::sandbox
