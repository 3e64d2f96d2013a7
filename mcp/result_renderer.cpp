#include "result_renderer.hpp"

#include "json_text.hpp"
#include "test_report_renderer.hpp"

namespace kg::cli {
namespace {

std::string or_unknown(const std::string& text) { return text.empty() ? "?" : text; }

void append_block(std::string& out, std::string_view title, std::string_view text) {
  if (text.empty()) return;
  out += "── ";
  out += title;
  out += " ──\n";
  out += text;
  if (text.back() != '\n') out += '\n';
}

std::string first_line(const ExecuteResult& result) {
  std::string line = (result.action.empty() ? "" : "action=" + result.action + " ") +
                     "phase=" + or_unknown(result.phase) + " mode=" + or_unknown(result.mode) +
                     " runtime=" + or_unknown(result.runtime) +
                     " exit=" + std::to_string(result.exit_code) + " (" +
                     std::to_string(result.duration_ms) + "ms, build " +
                     std::to_string(result.build_ms) + "ms)";
  if (result.status != "ok") line += " status=" + or_unknown(result.status);
  if (result.signal != 0) line += " signal=" + std::to_string(result.signal);
  if (result.cache_hit) line += " cache hit";
  if (result.tidied) line += " tidied";
  return line + '\n';
}

// "<file>:<line>:<col>: <message>", dropping the position parts the compiler did not give.
std::string diagnostic_line(const wire::daemon_api::Diagnostic& diagnostic) {
  std::string line = diagnostic.file;
  if (diagnostic.line > 0) {
    line += ':' + std::to_string(diagnostic.line);
    if (diagnostic.col > 0) line += ':' + std::to_string(diagnostic.col);
  }
  line += ": " + diagnostic.message;
  if (!diagnostic.analyzer.empty()) line += " (vet: " + diagnostic.analyzer + ")";
  return line + '\n';
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
std::string api_call_line(const wire::daemon_api::ApiCall& call) {
  std::string line = call.method;
  if (!call.resource.empty()) line += " " + call.resource;
  line += call.grpc_status ? " grpc=" + std::to_string(*call.grpc_status)
                           : " " + std::to_string(call.http_status);
  line += " " + std::to_string(call.duration_us / 1000) + "ms";
  line += " " + byte_size(call.request_bytes + call.response_bytes);
  if (!call.refused_rule.empty()) line += " refused: " + call.refused_rule;
  return line + '\n';
}

void append_api_calls(std::string& out, const wire::daemon_api::ApiCalls& api_calls,
                      std::size_t max_lines) {
  out += "── api calls: " + std::to_string(api_calls.count);
  if (api_calls.refused != 0) out += " (" + std::to_string(api_calls.refused) + " refused)";
  out += ", " + byte_size(api_calls.bytes) + " ──\n";
  std::size_t shown = 0;
  for (const auto& call : api_calls.calls) {
    if (shown == max_lines) break;
    out += api_call_line(call);
    ++shown;
  }
  if (api_calls.count > shown) {
    out += "... " + std::to_string(api_calls.count - shown) +
           " more (the daemon records every one it was told of; see docs/api-policy.md)\n";
  }
}

// "<name> (<size>, <media type>) <uri>", one line per file the call left.
std::string out_files_lines(const std::vector<wire::daemon_api::OutFile>& files) {
  std::string lines;
  for (const auto& file : files) {
    lines += file.name + " (" + byte_size(file.size) + ", " + file.media_type + ")";
    if (!file.uri.empty()) lines += " " + file.uri;
    lines += '\n';
  }
  return lines;
}

}  // namespace

std::string render_execute_result(const ExecuteResult& execute_result,
                                  std::size_t max_api_call_lines) {
  std::string out = first_line(execute_result);
  // With runtime auto: why it picked the runtime on the first line.
  if (!execute_result.runtime_reason.empty()) {
    out += "runtime reason: " + execute_result.runtime_reason + '\n';
  }
  for (const auto& warning : execute_result.warnings) out += "warning: " + warning + '\n';

  // Action test: failures first, before the streams.
  if (execute_result.tests) out += render_test_report(*execute_result.tests);

  std::string diagnostics;
  for (const auto& diagnostic : execute_result.diagnostics) diagnostics += diagnostic_line(diagnostic);
  append_block(out, "diagnostics", diagnostics);

  append_block(out, "stdout", execute_result.stdout_text);
  append_block(out, "stderr", execute_result.stderr_text);

  if (execute_result.result_json) {
    // Read within the daemon answer's depth bound, so pretty-printing recurses boundedly.
    append_block(out, "result", pretty_json(parse_json(*execute_result.result_json,
                                                       "The call's result")));
  }
  if (execute_result.api_calls) {
    append_api_calls(out, *execute_result.api_calls, max_api_call_lines);
  }
  append_block(out, "files under /app/out", out_files_lines(execute_result.files));
  return out;
}

}  // namespace kg::cli
