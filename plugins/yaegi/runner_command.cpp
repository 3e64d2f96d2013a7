#include "runner_command.hpp"

#include <string_view>

#include "go_source_scanner.hpp"

namespace kg::yaegi {
namespace {

// The runner with the curated packages' symbols, installed next to kode-gopher-yaegi
// (sandbox/yaegi-runner/cloud_runner.go names it the same).
constexpr const char* kCloudRunnerName = "kode-gopher-yaegi-cloud";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool outside_standard_library(std::string_view import_path) {
  const auto first = import_path.substr(0, import_path.find('/'));
  return first.find('.') != std::string_view::npos;
}

}  // namespace

bool imports_beyond_standard_library(const std::vector<plugin::SourceFile>& files) {
  for (const auto& file : files) {
    if (!ends_with(file.path, ".go") || ends_with(file.path, "_test.go")) continue;
    for (const auto& import : go_program::outline_go_file(file.content).imports) {
      if (outside_standard_library(import.path)) return true;
    }
  }
  return false;
}

std::string runner_command(const std::string& runner_path,
                           const std::vector<plugin::SourceFile>& files) {
  const std::string plain = "exec " + runner_path + " --call-on-stdin";
  if (!imports_beyond_standard_library(files)) return plain;
  const auto slash = runner_path.rfind('/');
  const std::string cloud =
      (slash == std::string::npos ? std::string() : runner_path.substr(0, slash + 1)) +
      kCloudRunnerName;
  return "if [ -x " + cloud + " ]; then GOGC=off exec " + cloud + " --call-on-stdin; fi; " + plain;
}

}  // namespace kg::yaegi
