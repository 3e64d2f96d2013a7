#include "ini_document.hpp"

#include <algorithm>
#include <cctype>

namespace kg::ini {
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

bool same_name(std::string_view a, std::string_view b) { return lowercase(a) == lowercase(b); }

// A "[name]" line: sets `section` (also when the header is malformed, so the keys after it are
// not filed under the section before it).
void read_section_header(std::string_view trimmed, int line, std::string& section,
                         IniDocument& document) {
  auto problem = [&](std::string message) { document.problems.push_back({line, std::move(message)}); };
  const auto close = trimmed.find(']');
  const auto name = trim(trimmed.substr(1, close == std::string_view::npos ? std::string_view::npos
                                                                          : close - 1));
  if (close == std::string_view::npos) {
    problem("section header \"" + std::string(trimmed) + "\" has no closing \"]\"");
  } else if (name.empty()) {
    problem("section header \"" + std::string(trimmed) + "\" has no name");
  } else if (!is_comment(trim(trimmed.substr(close + 1)))) {
    problem("unexpected text after the section header \"" +
            std::string(trimmed.substr(0, close + 1)) + "\"");
  }
  section = std::string(name);
  if (!section.empty() &&
      std::none_of(document.sections.begin(), document.sections.end(),
                   [&](const std::string& known) { return same_name(known, section); })) {
    document.sections.push_back(section);
  }
}

}  // namespace

std::string SourceLocation::to_string() const {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

const IniEntry* IniDocument::find(std::string_view section, std::string_view key) const {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (same_name(it->section, section) && same_name(it->key, key)) return &*it;
  }
  return nullptr;
}

IniDocument parse_ini_text(std::string_view text, std::string path) {
  IniDocument document;
  document.path = std::move(path);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::string section;
  int line = 0;
  while (!text.empty()) {
    ++line;
    const auto newline = text.find('\n');
    const auto trimmed = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (is_comment(trimmed)) continue;
    if (trimmed.front() == '[') {
      read_section_header(trimmed, line, section, document);
      continue;
    }
    const auto equals = trimmed.find('=');
    if (equals == std::string_view::npos) {
      document.problems.push_back(
          {line, "expected \"key = value\", got \"" + std::string(trimmed) + "\""});
      continue;
    }
    const auto key = trim(trimmed.substr(0, equals));
    if (key.empty()) {
      document.problems.push_back(
          {line, "\"" + std::string(trimmed) + "\" has no key before \"=\""});
      continue;
    }
    document.entries.push_back(
        {section, std::string(key), std::string(trim(trimmed.substr(equals + 1))), line});
  }
  return document;
}

}  // namespace kg::ini
