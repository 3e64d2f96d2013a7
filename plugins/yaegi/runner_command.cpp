#include "runner_command.hpp"

#include <string_view>

#include "go_source_scanner.hpp"

namespace kg::yaegi {
namespace {

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
  std::string command = "exec " + runner_path + " --call-on-stdin";
  if (imports_beyond_standard_library(files)) command += " --curated";
  return command;
}

}  // namespace kg::yaegi
