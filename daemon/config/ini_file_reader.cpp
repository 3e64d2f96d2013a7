#include "ini_file_reader.hpp"

#include <Poco/Exception.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

namespace kg::config {
namespace {

constexpr std::string_view kWhitespace = " \t\r\f\v";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kWhitespace);
  return text.substr(first, last - first + 1);
}

bool is_comment(std::string_view trimmed) {
  return trimmed.empty() || trimmed.front() == ';' || trimmed.front() == '#';
}

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

// Checks every line and returns the text Poco should parse: comments blanked (so '#' lines do
// not become keys) and section headers without trailing comments. Line numbers stay the same.
std::string check_lines(std::string_view text, const std::string& path,
                        std::vector<ConfigIssue>& issues) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  std::string for_poco;
  int line_number = 0;
  auto add_error = [&](const std::string& message) {
    issues.push_back({ConfigIssue::Severity::error, path, "",
                      "line " + std::to_string(line_number) + ": " + message});
  };
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    const auto line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    const auto trimmed = trim(line);
    if (is_comment(trimmed)) {
      for_poco += '\n';
      continue;
    }
    if (trimmed.front() == '[') {
      const auto close = trimmed.find(']');
      if (close == std::string_view::npos) {
        add_error("section header \"" + std::string(trimmed) + "\" has no closing \"]\"");
      } else if (trim(trimmed.substr(1, close - 1)).empty()) {
        add_error("section header \"" + std::string(trimmed) + "\" has no name");
      } else if (!is_comment(trim(trimmed.substr(close + 1)))) {
        add_error("unexpected text after the section header \"" +
                  std::string(trimmed.substr(0, close + 1)) + "\"");
      }
      for_poco.append(trimmed.substr(0, close == std::string_view::npos ? trimmed.size() : close));
      for_poco += "]\n";
      continue;
    }
    const auto equals = trimmed.find('=');
    if (equals == std::string_view::npos) {
      add_error("expected \"key = value\", got \"" + std::string(trimmed) + "\"");
      for_poco += '\n';  // reported once here, not again as an unknown key
      continue;
    }
    if (trim(trimmed.substr(0, equals)).empty()) {
      add_error("\"" + std::string(trimmed) + "\" has no key before \"=\"");
      for_poco += '\n';
      continue;
    }
    for_poco.append(line);
    for_poco += '\n';
  }
  return for_poco;
}

}  // namespace

IniFile read_ini_file(const std::string& path) {
  IniFile ini;
  std::string reason;
  const auto text = read_whole_file(path, reason);
  if (!text) {
    ini.issues.push_back({ConfigIssue::Severity::error, path, "", reason});
    return ini;
  }
  std::istringstream checked(check_lines(*text, path, ini.issues));
  try {
    ini.values = new Poco::Util::IniFileConfiguration(checked);
  } catch (const Poco::Exception& error) {
    ini.values = nullptr;
    ini.issues.push_back(
        {ConfigIssue::Severity::error, path, "", "cannot be parsed: " + error.displayText()});
  }
  return ini;
}

}  // namespace kg::config
