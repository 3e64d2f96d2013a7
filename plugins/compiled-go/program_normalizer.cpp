#include "program_normalizer.hpp"

#include <map>

#include "go_source_scanner.hpp"

namespace kg::compiled_go {
namespace {

using plugin::InvalidInputError;

constexpr std::size_t kMaxFiles = 1000;

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// "go1.26.8" -> "1.26"; anything unexpected -> "1.22" (the oldest with per-iteration loops).
std::string go_directive(const std::string& go_version) {
  if (!go_version.starts_with("go")) return "1.22";
  const auto first = go_version.find('.');
  if (first == std::string::npos) return "1.22";
  const auto second = go_version.find_first_not_of("0123456789", first + 1);
  return go_version.substr(2, (second == std::string::npos ? go_version.size() : second) - 2);
}

}  // namespace

void check_source_path(const std::string& path) {
  if (path.empty()) throw InvalidInputError("a file has an empty path; give every file a name");
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) {
    throw InvalidInputError("file path " + quoted(path) +
                            " has a NUL or backslash; use '/'-separated relative paths");
  }
  if (path.front() == '/') {
    throw InvalidInputError("file path " + quoted(path) +
                            " is absolute; use a path relative to the program's root");
  }
  std::size_t start = 0;
  for (;;) {
    const auto slash = path.find('/', start);
    const auto segment = path.substr(start, slash == std::string::npos ? std::string::npos
                                                                        : slash - start);
    if (segment.empty() || segment == "." || segment == "..") {
      throw InvalidInputError("file path " + quoted(path) + " has an empty, '.' or '..' segment; " +
                              "paths must stay inside the program");
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

NormalizedProgram normalize_program(const std::vector<plugin::SourceFile>& files,
                                    const NormalizeOptions& options) {
  if (files.empty()) throw InvalidInputError("no files were sent; send at least main.go");
  if (files.size() > kMaxFiles) {
    throw InvalidInputError(std::to_string(files.size()) + " files were sent; the limit is " +
                            std::to_string(kMaxFiles));
  }
  NormalizedProgram program;
  std::map<std::string, const plugin::SourceFile*> root_go_files;  // sorted: stable messages
  for (const auto& file : files) {
    check_source_path(file.path);
    if (file.path == "go.mod") program.user_go_mod = true;
    if (file.path.find('/') == std::string::npos && file.path.ends_with(".go")) {
      root_go_files.emplace(file.path, &file);
    }
  }
  if (root_go_files.empty()) {
    throw InvalidInputError("no .go file at the root: the entry package's files must have paths "
                            "without '/', e.g. \"main.go\"");
  }
  std::string package_name, package_file;
  std::vector<std::pair<std::string, int>> mains;  // file, line
  for (const auto& [path, file] : root_go_files) {
    const auto outline = outline_go_file(file->content);
    if (!outline.package_name) {
      throw InvalidInputError(path + " has no package clause; start it with `package main`");
    }
    if (package_name.empty()) {
      package_name = *outline.package_name;
      package_file = path;
    } else if (*outline.package_name != package_name) {
      throw InvalidInputError("root files declare different packages: " + package_file +
                              " has `package " + package_name + "`, " + path + " has `package " +
                              *outline.package_name + "`; use one package name for all root files");
    }
    for (const auto& func : outline.functions) {
      if (func.name == "main") mains.emplace_back(path, func.line);
    }
  }
  if (package_name != "main") {
    throw InvalidInputError("package " + package_name + " in " + package_file +
                            ": this build runs whole programs only; declare `package main` "
                            "with a `func main()`");
  }
  program.mode = plugin::Mode::verbatim;
  if (mains.empty()) {
    throw InvalidInputError("package main has no `func main()`; add one to a root file");
  }
  if (mains.size() > 1) {
    throw InvalidInputError("`func main` is declared more than once (" + mains[0].first + ":" +
                            std::to_string(mains[0].second) + " and " + mains[1].first + ":" +
                            std::to_string(mains[1].second) + "); keep exactly one");
  }
  program.files = files;
  if (!program.user_go_mod) {
    program.files.push_back(
        {"go.mod", "module kode_gopher_user\n\ngo " + go_directive(options.go_version) + "\n"});
  }
  return program;
}

}  // namespace kg::compiled_go
