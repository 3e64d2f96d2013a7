// read_ini_file: the file's bytes (refusing what is not a readable regular file), then
// parse_ini_text. Split from the parser so the parser stays pure and testable on strings.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "ini_document.hpp"

namespace kg::ini {
namespace {

// The whole file, or the reason it cannot be read.
std::optional<std::string> read_whole_file(const std::string& path, std::string& reason) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) {
    reason = "cannot be read: " + error.message();
    return std::nullopt;
  }
  if (std::filesystem::is_directory(status)) {
    reason = "is a directory, not a config file";
    return std::nullopt;
  }
  if (!std::filesystem::is_regular_file(status)) {
    reason = "is not a regular file";
    return std::nullopt;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    reason = std::string("cannot be read: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char buffer[8192];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, count);
  if (std::ferror(file.get())) {
    reason = std::string("cannot be read: ") + std::strerror(errno);
    return std::nullopt;
  }
  return text;
}

}  // namespace

IniDocument read_ini_file(const std::string& path) {
  std::string reason;
  const auto text = read_whole_file(path, reason);
  if (!text) {
    IniDocument document;
    document.path = path;
    document.problems.push_back({0, reason});
    return document;
  }
  return parse_ini_text(*text, path);
}

}  // namespace kg::ini
