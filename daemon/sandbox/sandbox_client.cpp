#include "sandbox_client.hpp"

#include <Poco/URI.h>

#include "error_chain.hpp"
#include "malformed_message.hpp"
#include "sandbox_api/error_answer.hpp"
#include "sandbox_api/execute_answer.hpp"
#include "sandbox_api/execute_request.hpp"
#include "sandbox_api/execute_stream.hpp"
#include "sandbox_api/workdir_answers.hpp"
#include "tar_builder.hpp"
#include "utf8_text.hpp"

namespace kg::sandbox {
namespace {

namespace wire = kg::wire::sandbox_api;
using plugin::SandboxError;

// Whatever a sandbox answers is hostile: the codecs (lib/wire/sandbox_api) read it with lib/json,
// without recursion and within the depth bound, and every string taken from it is valid UTF-8.

// The sandbox's error answer, or the start of whatever else it sent.
std::string error_text(const net::HttpResponse& response) {
  if (auto detail = wire::decode_error_answer(response.body)) return std::move(*detail);
  const std::string_view body = response.body;
  const auto shown = body.substr(0, json::utf8_boundary_before(body, 200));
  return "HTTP " + std::to_string(response.status) + ": " + json::to_valid_utf8(shown);
}

wire::ExecuteRequest execute_request_of(const plugin::CommandSpec& spec) {
  wire::ExecuteRequest request;
  request.command = spec.command;
  request.env = spec.env;
  request.timeout_ms = spec.timeout_ms;
  request.output_limit_bytes = spec.output_limit_bytes;
  request.limits = wire::ExecuteLimits{spec.resources.cpu_seconds,
                                       spec.resources.file_size_bytes, spec.resources.open_files};
  if (spec.read_file_after) {
    request.read_file = wire::ReadFileRequest{spec.read_file_after->path,
                                              spec.read_file_after->max_bytes};
  }
  request.clean_state = spec.clean_state;
  if (spec.credentials) {
    const plugin::CommandCredentials& credentials = *spec.credentials;
    request.credentials =
        wire::ExecuteCredentials{credentials.access_token, credentials.expiry_rfc3339,
                                 credentials.email, credentials.project, credentials.quota_project};
  }
  request.prestart_arguments = spec.prestart_arguments;
  return request;
}

// One line of a streamed /execute answer: output to the sink, the outcome or the error kept for
// the end. Throws MalformedMessage.
void read_stream_line(std::string_view line, OutputSink& output,
                      std::optional<wire::ExecuteAnswer>& answer,
                      std::optional<std::string>& error) {
  auto decoded = wire::decode_execute_stream_line(line);
  if (!decoded) return;  // a kind this daemon does not know
  if (auto* piece = std::get_if<wire::OutputPiece>(&*decoded)) {
    piece->text = json::to_valid_utf8(piece->text);
    output.printed(*piece);
  } else if (auto* dropped = std::get_if<wire::OutputDropped>(&*decoded)) {
    output.dropped(*dropped);
  } else if (auto* result = std::get_if<wire::ExecuteAnswer>(&*decoded)) {
    answer = std::move(*result);
  } else {
    error = json::to_valid_utf8(std::get<wire::StreamError>(*decoded).detail);
  }
}

plugin::CommandOutcome outcome_of(wire::ExecuteAnswer answer) {
  plugin::CommandOutcome outcome;
  outcome.stdout_text = std::move(answer.stdout_text);
  outcome.stderr_text = std::move(answer.stderr_text);
  outcome.exit_code = answer.exit_code;
  outcome.signal = answer.signal;
  outcome.timed_out = answer.timed_out;
  outcome.cpu_limit_exceeded = answer.cpu_limit_exceeded;
  outcome.stdout_truncated = answer.stdout_truncated;
  outcome.stderr_truncated = answer.stderr_truncated;
  outcome.stdout_discarded_bytes = answer.stdout_discarded_bytes;
  outcome.stderr_discarded_bytes = answer.stderr_discarded_bytes;
  outcome.duration_ms = answer.duration_ms;
  if (answer.file) {
    outcome.file_after = plugin::FileAfterCommand{answer.file->exists,
                                                  std::move(answer.file->content),
                                                  std::move(answer.file->error)};
  }
  return outcome;
}

std::string encode_path(std::string_view path) {
  std::string encoded;
  Poco::URI::encode(std::string(path), "/?#%&=+ ", encoded);
  // The contract sends '/' as %2F inside the path segment.
  std::string out;
  for (char c : encoded) out += (c == '/') ? std::string("%2F") : std::string(1, c);
  return out;
}

}  // namespace

bool SandboxClient::healthy(std::chrono::milliseconds timeout) const noexcept {
  try {
    net::HttpRequestOptions options;
    options.timeout = timeout;
    const auto response = http_->request("GET", "/", {}, options);
    return response.status == 200 && wire::decode_status_answer(response.body).status == "ok";
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
                                                  net::RequestCanceller* canceller,
                                                  OutputSink* output) {
  net::HttpRequestOptions options;
  // Headers arrive only when the command ends: wait for the command's own limit plus slack.
  options.timeout = std::chrono::milliseconds(spec.timeout_ms) + std::chrono::seconds(30);
  // Both streams at their cap, and JSON may spell each control byte as \u00XX (6 bytes).
  options.max_response_bytes = 2 * 6 * spec.output_limit_bytes + (1 << 20);
  // The file comes as base64: 4 bytes for every 3.
  if (spec.read_file_after) options.max_response_bytes += spec.read_file_after->max_bytes / 3 * 4 + 4;
  options.canceller = canceller;
  wire::ExecuteRequest request = execute_request_of(spec);
  std::optional<wire::ExecuteAnswer> streamed_answer;
  std::optional<std::string> streamed_error;
  const net::StreamLineHandler on_line = [&](std::string_view line) {
    read_stream_line(line, *output, streamed_answer, streamed_error);
  };
  if (spec.stream_output && output != nullptr) {
    // As much as the result keeps of both streams, at most: the caller reads the rest there.
    request.stream = wire::StreamRequest{
        std::min<std::uint64_t>(2 * spec.output_limit_bytes, wire::kMaxStreamMaxBytes),
        spec.stream_skip_prefix};
    options.headers.emplace_back("Accept", "application/x-ndjson");
    options.stream_lines = &on_line;
  }
  net::HttpResponse response;
  try {
    response = call("POST", "/execute", wire::encode_execute_request(request), options,
                    "Running a command");
  } catch (const kg::wire::MalformedMessage& e) {
    throw SandboxError(std::string("Running a command: ") + e.what());
  }
  if (response.status != 200) {
    throw SandboxError("Running a command failed: " + error_text(response));
  }
  if (streamed_error) throw SandboxError("Running a command failed: " + *streamed_error);
  plugin::CommandOutcome outcome;
  try {
    if (streamed_answer) {
      outcome = outcome_of(std::move(*streamed_answer));
    } else if (options.stream_lines != nullptr && response.body.empty()) {
      throw SandboxError("Running a command: the sandbox's streamed answer ended without its "
                         "result line");
    } else {
      outcome = outcome_of(wire::decode_execute_answer(response.body));
    }
  } catch (const kg::wire::MalformedMessage& e) {
    throw SandboxError(std::string("Running a command: ") + e.what());
  }
  if (!spec.read_file_after) {
    outcome.file_after.reset();  // set exactly when asked for (plugin_api/sandbox_handle.hpp)
  } else if (!outcome.file_after) {
    // A sandbox without the read_file extension: one more round trip.
    outcome.file_after = read_file_separately(*spec.read_file_after);
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

std::optional<std::string> SandboxClient::folder_tar(std::string_view path,
                                                     const FolderTarBounds& bounds) {
  net::HttpRequestOptions options;
  // The files, plus a header and padding per entry and room for the refused ones' reasons.
  options.max_response_bytes = bounds.max_total_bytes + (bounds.max_files + 4096) * 4096;
  const std::string what = "Fetching the folder " + std::string(path);
  net::HttpResponse response;
  try {
    response = http_->request("GET",
                              "/download-tar/" + encode_path(path) +
                                  "?max_files=" + std::to_string(bounds.max_files) +
                                  "&max_file_bytes=" + std::to_string(bounds.max_file_bytes) +
                                  "&max_total_bytes=" + std::to_string(bounds.max_total_bytes),
                              {}, options);
  } catch (const net::HttpTransportError&) {
    std::throw_with_nested(SandboxError(what + " failed"));
  }
  if (response.status == 404) return std::nullopt;
  if (response.status != 200) throw SandboxError(what + " failed: " + error_text(response));
  return std::move(response.body);
}

}  // namespace kg::sandbox
