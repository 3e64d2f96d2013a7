#include "result_renderer.hpp"

#include "json_text.hpp"
#include "test_report_renderer.hpp"

namespace kg::cli {
namespace {

const rapidjson::Value* member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto found = object.FindMember(name);
  return found == object.MemberEnd() ? nullptr : &found->value;
}

std::string string_or_empty(const rapidjson::Value* value) {
  if (value == nullptr || !value->IsString()) return {};
  return {value->GetString(), value->GetStringLength()};
}

bool is_true(const rapidjson::Value* value) {
  return value != nullptr && value->IsBool() && value->GetBool();
}

void append_block(std::string& out, std::string_view title, std::string_view text) {
  if (text.empty()) return;
  out += "── ";
  out += title;
  out += " ──\n";
  out += text;
  if (text.back() != '\n') out += '\n';
}

std::string first_line(const rapidjson::Value& result) {
  const std::string action = member_text(result, "action", "");
  std::string line = (action.empty() ? "" : "action=" + action + " ") +
                     "phase=" + member_text(result, "phase", "?") +
                     " mode=" + member_text(result, "mode", "?") +
                     " runtime=" + member_text(result, "runtime", "?") +
                     " exit=" + member_text(result, "exit_code", "?") + " (" +
                     member_text(result, "duration_ms", "?") + "ms, build " +
                     member_text(result, "build_ms", "?") + "ms)";
  const std::string status = member_text(result, "status", "?");
  if (status != "ok") line += " status=" + status;
  if (const std::string signal = member_text(result, "signal", ""); !signal.empty()) {
    line += " signal=" + signal;
  }
  if (is_true(member(result, "cache_hit"))) line += " cache hit";
  if (is_true(member(result, "tidied"))) line += " tidied";
  return line + '\n';
}

// "<file>:<line>:<col>: <message>", dropping the position parts the compiler did not give.
std::string diagnostic_line(const rapidjson::Value& diagnostic) {
  if (!diagnostic.IsObject()) return compact_json(diagnostic) + '\n';
  std::string line = string_or_empty(member(diagnostic, "file"));
  const rapidjson::Value* line_number = member(diagnostic, "line");
  if (line_number != nullptr && line_number->IsInt() && line_number->GetInt() > 0) {
    line += ':' + std::to_string(line_number->GetInt());
    const rapidjson::Value* column = member(diagnostic, "col");
    if (column != nullptr && column->IsInt() && column->GetInt() > 0) {
      line += ':' + std::to_string(column->GetInt());
    }
  }
  line += ": " + string_or_empty(member(diagnostic, "message"));
  if (const std::string analyzer = string_or_empty(member(diagnostic, "analyzer"));
      !analyzer.empty()) {
    line += " (vet: " + analyzer + ")";
  }
  return line + '\n';
}

std::uint64_t number_or_zero(const rapidjson::Value* value) {
  return value != nullptr && value->IsUint64() ? value->GetUint64() : 0;
}

std::string byte_size(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + "B";
  const std::uint64_t tenths = bytes * 10 / 1024;
  if (tenths < 10240) return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " KiB";
  const std::uint64_t mib_tenths = bytes * 10 / (1024 * 1024);
  return std::to_string(mib_tenths / 10) + "." + std::to_string(mib_tenths % 10) + " MiB";
}

// "<method> <resource> <status> <ms>ms <bytes> [refused: <rule>]"; status is grpc=N when a gRPC
// status came, else the HTTP status.
std::string api_call_line(const rapidjson::Value& call) {
  std::string line = string_or_empty(member(call, "method"));
  if (const std::string resource = string_or_empty(member(call, "resource")); !resource.empty()) {
    line += " " + resource;
  }
  const rapidjson::Value* grpc = member(call, "grpc_status");
  line += grpc != nullptr ? " grpc=" + member_text(call, "grpc_status", "?")
                          : " " + member_text(call, "http_status", "?");
  line += " " + std::to_string(number_or_zero(member(call, "duration_us")) / 1000) + "ms";
  line += " " + byte_size(number_or_zero(member(call, "request_bytes")) +
                          number_or_zero(member(call, "response_bytes")));
  if (const std::string rule = string_or_empty(member(call, "refused")); !rule.empty()) {
    line += " refused: " + rule;
  }
  return line + '\n';
}

void append_api_calls(std::string& out, const rapidjson::Value& api_calls, std::size_t max_lines) {
  if (!api_calls.IsObject()) return;
  const std::uint64_t count = number_or_zero(member(api_calls, "count"));
  const std::uint64_t refused = number_or_zero(member(api_calls, "refused"));
  out += "── api calls: " + std::to_string(count);
  if (refused != 0) out += " (" + std::to_string(refused) + " refused)";
  out += ", " + byte_size(number_or_zero(member(api_calls, "bytes"))) + " ──\n";
  std::size_t shown = 0;
  if (const rapidjson::Value* calls = member(api_calls, "calls"); calls != nullptr && calls->IsArray()) {
    for (const auto& call : calls->GetArray()) {
      if (shown == max_lines) break;
      out += api_call_line(call);
      ++shown;
    }
  }
  if (count > shown) {
    out += "... " + std::to_string(count - shown) +
           " more (the daemon records every one it was told of; see docs/api-policy.md)\n";
  }
}

// "<name> (<size>, <media type>) <uri>", one line per file the call left.
std::string out_files_lines(const rapidjson::Value& result) {
  std::string lines;
  const rapidjson::Value* files = member(result, "files");
  if (files == nullptr || !files->IsArray()) return lines;
  for (const auto& file : files->GetArray()) {
    lines += string_or_empty(member(file, "name")) + " (" +
             byte_size(number_or_zero(member(file, "size"))) + ", " +
             string_or_empty(member(file, "media_type")) + ")";
    if (const std::string uri = string_or_empty(member(file, "uri")); !uri.empty()) {
      lines += " " + uri;
    }
    lines += '\n';
  }
  return lines;
}

}  // namespace

std::string render_execute_result(const rapidjson::Value& execute_result,
                                  std::size_t max_api_call_lines) {
  std::string out = first_line(execute_result);
  // With runtime auto: why it picked the runtime on the first line.
  if (const std::string reason = string_or_empty(member(execute_result, "runtime_reason"));
      !reason.empty()) {
    out += "runtime reason: " + reason + '\n';
  }

  if (const rapidjson::Value* warnings = member(execute_result, "warnings");
      warnings != nullptr && warnings->IsArray()) {
    for (const auto& warning : warnings->GetArray()) {
      out += "warning: " +
             (warning.IsString() ? string_or_empty(&warning) : compact_json(warning)) + '\n';
    }
  }

  // Action test: failures first, before the streams.
  if (const rapidjson::Value* tests = member(execute_result, "tests")) {
    out += render_test_report(*tests);
  }

  if (const rapidjson::Value* diagnostics = member(execute_result, "diagnostics");
      diagnostics != nullptr && diagnostics->IsArray() && !diagnostics->Empty()) {
    std::string lines;
    for (const auto& diagnostic : diagnostics->GetArray()) lines += diagnostic_line(diagnostic);
    append_block(out, "diagnostics", lines);
  }

  append_block(out, "stdout", string_or_empty(member(execute_result, "stdout")));
  append_block(out, "stderr", string_or_empty(member(execute_result, "stderr")));

  if (const rapidjson::Value* result = member(execute_result, "result");
      result != nullptr && !result->IsNull()) {
    append_block(out, "result", pretty_json(*result));
  }
  if (const rapidjson::Value* api_calls = member(execute_result, "api_calls")) {
    append_api_calls(out, *api_calls, max_api_call_lines);
  }
  append_block(out, "files under /app/out", out_files_lines(execute_result));
  return out;
}

}  // namespace kg::cli
