#include "go_vet_report.hpp"

#include <string>

#include "build_output.hpp"
#include "json_reader.hpp"

namespace kg::go_program {
namespace {

constexpr json::ReadLimits kVetLimits{16 * 1024 * 1024, 8, json::InvalidUtf8::repair};

// "/app/dir/x.go:7:14" → a diagnostic at dir/x.go, line 7, column 14 (through the compiler
// diagnostics' own reader, so both name files the same way).
plugin::Diagnostic finding(std::string_view posn, std::string_view message,
                           std::string_view analyzer) {
  std::string line(posn);
  line += ": ";
  line += message;
  auto parsed = parse_diagnostics(line);
  plugin::Diagnostic d;
  if (!parsed.empty()) {
    d = std::move(parsed.front());
  } else {
    d.file = strip_sandbox_paths(posn);  // a position vet gave without line or column
    d.message = std::string(message);
  }
  d.message = strip_sandbox_paths(message);
  d.analyzer = std::string(analyzer);
  return d;
}

void read_vet_object(const rapidjson::Value& object, GoVetReport& report) {
  if (!object.IsObject()) return;
  for (const auto& package : object.GetObject()) {
    if (!package.value.IsObject()) continue;
    for (const auto& analyzer : package.value.GetObject()) {
      const std::string_view name(analyzer.name.GetString(), analyzer.name.GetStringLength());
      if (!analyzer.value.IsArray()) {
        // {"error": "..."}: the analyzer itself failed on this package.
        if (analyzer.value.IsObject()) {
          const auto error = analyzer.value.FindMember("error");
          if (error != analyzer.value.MemberEnd() && error->value.IsString()) {
            report.findings.push_back(finding("", error->value.GetString(), name));
          }
        }
        continue;
      }
      for (const auto& item : analyzer.value.GetArray()) {
        if (!item.IsObject()) continue;
        const auto posn = item.FindMember("posn");
        const auto message = item.FindMember("message");
        if (posn == item.MemberEnd() || !posn->value.IsString() ||
            message == item.MemberEnd() || !message->value.IsString()) {
          continue;
        }
        report.findings.push_back(finding(
            std::string_view(posn->value.GetString(), posn->value.GetStringLength()),
            std::string_view(message->value.GetString(), message->value.GetStringLength()),
            name));
      }
    }
  }
}

}  // namespace

GoVetReport read_go_vet_output(std::string_view text) {
  GoVetReport report;
  std::string compiler_lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line == "{") {
      // One package's object runs to the next line that is "}" alone.
      const auto close = text.find("\n}", end);
      const auto object_end = close == std::string_view::npos ? text.size() : close + 2;
      const auto read = json::read_json(text.substr(start, object_end - start), kVetLimits);
      if (!read.refused) read_vet_object(read.document, report);
      start = object_end + 1;
      continue;
    }
    start = end + 1;
    if (line.starts_with("vet: ")) line.remove_prefix(5);
    compiler_lines.append(line);
    compiler_lines += '\n';
  }
  report.compile_errors = parse_diagnostics(compiler_lines);
  return report;
}

}  // namespace kg::go_program
