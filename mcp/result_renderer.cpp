#include "result_renderer.hpp"

#include "json_text.hpp"

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
  std::string line = "phase=" + member_text(result, "phase", "?") +
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
  return line + ": " + string_or_empty(member(diagnostic, "message")) + '\n';
}

}  // namespace

std::string render_execute_result(const rapidjson::Value& execute_result) {
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
  return out;
}

}  // namespace kg::cli
