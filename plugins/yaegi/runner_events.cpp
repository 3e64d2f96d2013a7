#include "runner_events.hpp"

#include <rapidjson/document.h>

#include "build_output.hpp"
#include "json_members.hpp"
#include "json_reader.hpp"

namespace kg::yaegi {
namespace {

int int_member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsInt() ? it->value.GetInt() : 0;
}

RunnerEvent unreadable_event(std::string message) {
  RunnerEvent event;
  event.kind = RunnerEventKind::internal;
  event.text = std::move(message);
  event.unreadable = true;
  return event;
}

RunnerEvent parse_event(std::string_view json) {
  const json::ReadJson read = json::read_json(json, json::kSandboxOutputLimits);
  const rapidjson::Document& doc = read.document;
  if (read.refused || !doc.IsObject()) {
    const std::string why = read.refused ? "it " + read.refused->describe() : "not a JSON object";
    return unreadable_event("the runner wrote an unreadable event (" + why +
                          "): " + std::string(json.substr(0, 200)));
  }
  const std::string name = json::string_member(doc, "event");
  RunnerEvent event;
  if (name == "accepted" || name == "declined") {
    event.kind = name == "accepted" ? RunnerEventKind::accepted : RunnerEventKind::declined;
    event.text = json::string_member(doc, "reason");
    const auto evidence = doc.FindMember("evidence");
    if (event.kind == RunnerEventKind::declined && evidence != doc.MemberEnd() &&
        evidence->value.IsObject()) {
      plugin::DeclineEvidence e{json::string_member(evidence->value, "file"),
                                json::string_member(evidence->value, "text")};
      if (!e.file.empty() && !e.text.empty()) event.evidence = std::move(e);
    }
  } else if (name == "limitation" || name == "internal") {
    event.kind = name == "limitation" ? RunnerEventKind::limitation : RunnerEventKind::internal;
    event.text = json::string_member(doc, "message");
  } else if (name == "compiled") {
    event.kind = RunnerEventKind::compiled;
    const auto it = doc.FindMember("elapsed_us");
    if (it != doc.MemberEnd() && it->value.IsUint64()) event.elapsed_us = it->value.GetUint64();
  } else if (name == "started") {
    event.kind = RunnerEventKind::started;
  } else if (name == "compile_error") {
    event.kind = RunnerEventKind::compile_error;
    const auto it = doc.FindMember("diagnostics");
    if (it != doc.MemberEnd() && it->value.IsArray()) {
      for (const auto& item : it->value.GetArray()) {
        if (!item.IsObject()) continue;
        plugin::Diagnostic d;
        d.file = go_program::strip_sandbox_paths(json::string_member(item, "file"));
        d.line = int_member(item, "line");
        d.col = int_member(item, "col");
        d.message = go_program::strip_sandbox_paths(json::string_member(item, "message"));
        event.diagnostics.push_back(std::move(d));
      }
    }
  } else {
    return unreadable_event("the runner wrote an unknown event \"" + name + "\"");
  }
  return event;
}

// Once the program's code runs it may have found the token: only the events the runner can still
// write then (limitation, internal), which a program can also cause for real, count; a verdict
// (declined, compile_error, accepted) or a second `started` is the program's output.
bool trusted_after_start(const RunnerEvent& event, bool started) {
  return !started || (!event.unreadable && (event.kind == RunnerEventKind::limitation ||
                                            event.kind == RunnerEventKind::internal));
}

}  // namespace

std::string runner_line_prefix(std::string_view token) {
  return "kode-gopher-yaegi[" + std::string(token) + "] ";
}

RunnerStderr split_runner_stderr(std::string_view stderr_text, std::string_view token) {
  RunnerStderr split;
  const std::string prefix = runner_line_prefix(token);
  std::size_t start = 0;
  while (start < stderr_text.size()) {
    std::size_t end = stderr_text.find('\n', start);
    const bool complete = end != std::string_view::npos;
    if (!complete) end = stderr_text.size();
    const std::string_view line = stderr_text.substr(start, end - start);
    bool runner_line = !token.empty() && line.starts_with(prefix);
    if (runner_line) {
      RunnerEvent event = parse_event(line.substr(prefix.size()));
      runner_line = trusted_after_start(event, split.started);
      if (runner_line) {
        if (event.kind == RunnerEventKind::started) split.started = true;
        split.events.push_back(std::move(event));
      }
    }
    if (!runner_line) {
      split.user_stderr.append(line);
      if (complete) split.user_stderr.push_back('\n');
    }
    start = end + 1;
  }
  return split;
}

const RunnerEvent* find_event(const RunnerStderr& split, RunnerEventKind kind) {
  for (const auto& event : split.events) {
    if (event.kind == kind) return &event;
  }
  return nullptr;
}

}  // namespace kg::yaegi
