#include "daemon_stream.hpp"

#include <optional>
#include <stdexcept>
#include <variant>

#include "cli_errors.hpp"
#include "daemon_api/error_body.hpp"
#include "daemon_api/progress_line.hpp"
#include "daemon_client.hpp"
#include "json_members.hpp"
#include "json_text.hpp"
#include "malformed_message.hpp"
#include "sandbox_api/execute_stream.hpp"
#include "unix_http_stream.hpp"

namespace kg::cli {
namespace {

namespace wire = kg::wire::sandbox_api;
namespace wire_daemon = kg::wire::daemon_api;

// An "output" or "output_dropped" line, read with the codec that wrote it.
mcp::ProgramOutput program_output_of(std::string_view line) {
  std::optional<wire::ExecuteStreamLine> decoded;
  try {
    decoded = wire::decode_execute_stream_line(line);
  } catch (const kg::wire::MalformedMessage& e) {
    throw std::runtime_error(std::string("A line of the daemon's stream: ") + e.what());
  }
  mcp::ProgramOutput output;
  if (const auto* piece = decoded ? std::get_if<wire::OutputPiece>(&*decoded) : nullptr) {
    output.is_stderr = piece->is_stderr;
    output.text = piece->text;
    output.cut = piece->cut;
  } else if (const auto* dropped =
                 decoded ? std::get_if<wire::OutputDropped>(&*decoded) : nullptr) {
    output.dropped_bytes = dropped->bytes;
    output.reason = std::string(wire::to_string(dropped->reason));
  }
  return output;
}

// A "progress" line, read with the codec that wrote it.
wire_daemon::ProgressLine progress_line_of(const rapidjson::Value& message) {
  try {
    return wire_daemon::decode_progress_line(message);
  } catch (const kg::wire::MalformedMessage& e) {
    throw std::runtime_error(std::string("A line of the daemon's stream: ") + e.what());
  }
}

// The last line of a call that failed: {"error": {"code", "message"}}, the daemon's error body.
wire_daemon::ErrorBody error_line_of(const rapidjson::Value& message) {
  try {
    return wire_daemon::decode_error_body(message);
  } catch (const kg::wire::MalformedMessage& e) {
    throw std::runtime_error(std::string("A line of the daemon's stream: ") + e.what());
  }
}

}  // namespace

rapidjson::Document post_streamed(const std::string& socket_path, const std::string& target,
                                  std::string_view body, const kg::net::HttpRequestOptions& options,
                                  const StreamHandlers& handlers) {
  std::optional<rapidjson::Document> outcome;
  const kg::net::UnixHttpStream stream(socket_path);
  const kg::net::HttpResponse response =
      stream.request("POST", target, body, options, [&](std::string_view line) {
        rapidjson::Document message = parse_json(line, "A line of the daemon's stream");
        if (json::find_member(&message, "progress") != nullptr) {
          if (handlers.on_phase) {
            const auto progress = progress_line_of(message);
            handlers.on_phase(progress.phase, progress.detail);
          }
        } else if (json::find_member(&message, "output") != nullptr ||
                   json::find_member(&message, "output_dropped") != nullptr) {
          if (handlers.on_output) handlers.on_output(program_output_of(line));
        } else if (json::find_member(&message, "error") != nullptr) {
          const auto error = error_line_of(message);
          throw DaemonApiError(200, error.code, error.message);
        } else if (const rapidjson::Value* result = json::find_member(&message, "result")) {
          outcome.emplace();
          outcome->CopyFrom(*result, outcome->GetAllocator());
        }
      });
  if (response.status < 200 || response.status > 299) {
    throw daemon_error_from_answer(response.status, response.body);
  }
  if (!response.body.empty()) {  // a daemon that does not stream answers with the result
    return parse_json(response.body, "The daemon's answer to POST " + target);
  }
  if (!outcome) {
    throw std::runtime_error("The daemon's stream for POST " + target +
                             " ended without a result line");
  }
  return std::move(*outcome);
}

}  // namespace kg::cli
