#include "package_docs_text.hpp"

#include <algorithm>
#include <cctype>

namespace kg::sandbox {
namespace {

constexpr std::size_t kLineMaxChars = 160;

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The first `max` bytes of text, backed off to a UTF-8 character boundary, with "…" when cut.
std::string cut_at(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) --max;
  return std::string(text.substr(0, max)) + "…";
}

bool is_declaration(std::string_view line) {
  for (const std::string_view keyword : {"func ", "type ", "var ", "const "}) {
    if (line.starts_with(keyword)) return true;
  }
  return false;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The identifier at the start of `text`, empty when there is none.
std::string identifier_at(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && is_identifier_char(text[end])) ++end;
  return std::string(text.substr(0, end));
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The name a summary line declares ("" for a group such as "const (").
std::string name_declared(std::string_view line) {
  for (const std::string_view keyword : {"func ", "type ", "var ", "const "}) {
    if (line.starts_with(keyword)) return identifier_at(line.substr(keyword.size()));
  }
  return "";
}

}  // namespace

std::string package_index(std::string_view go_doc_output) {
  const std::vector<std::string_view> lines = lines_of(go_doc_output);
  std::size_t summary = lines.size();
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (is_declaration(lines[i]) && lines[i - 1].empty()) {
      summary = i;
      break;
    }
  }
  std::string index;
  if (!lines.empty()) index += std::string(lines[0]) + "\n";  // package x // import "..."
  // The package comment's first paragraph: its synopsis.
  std::size_t line = 1;
  while (line < summary && lines[line].empty()) ++line;
  std::string synopsis;
  for (; line < summary && !lines[line].empty(); ++line) {
    synopsis += std::string(lines[line]) + "\n";
  }
  if (synopsis.size() > 800) synopsis = cut_at(synopsis, 800) + "\n";
  if (!synopsis.empty()) index += "\n" + synopsis;
  index += "\nIndex (ask for one symbol with the symbol argument, e.g. a function, a type, or "
           "Type.Method, for its documentation and methods):\n\n";

  std::vector<std::string> names_left;  // of the declarations past the index's room
  bool full = false;
  for (std::size_t i = summary; i < lines.size(); ++i) {
    const std::string_view text = lines[i];
    if (text.empty()) continue;
    full = full || index.size() + std::min(text.size(), kLineMaxChars) >= kPackageIndexMaxChars;
    if (!full) {
      index += cut_at(text, kLineMaxChars) + "\n";
      continue;
    }
    std::string_view trimmed = text;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) {
      trimmed.remove_prefix(1);
    }
    if (std::string name = name_declared(trimmed); !name.empty()) {
      names_left.push_back(std::move(name));
    }
  }
  if (!names_left.empty()) {
    std::string more = "\nMore names: ";
    std::size_t shown = 0;
    for (const std::string& name : names_left) {
      if (index.size() + more.size() + name.size() + 2 > kPackageIndexMaxChars + 1500) break;
      more += (shown == 0 ? "" : ", ") + name;
      ++shown;
    }
    index += more + "\n";
    if (shown < names_left.size()) {
      index += "… and " + std::to_string(names_left.size() - shown) + " more names";
      index += "\n";
    }
  }
  return index;
}

std::string without_go_noise(std::string_view go_doc_stderr) {
  std::string kept;
  for (const std::string_view line : lines_of(go_doc_stderr)) {
    if (line.empty() || line.find("GOPROXY=off") != std::string_view::npos ||
        line.starts_with("exit status ")) {
      continue;
    }
    kept += std::string(line) + "\n";
  }
  return kept;
}

std::vector<std::string> declared_names(std::string_view short_listing, bool methods_only) {
  std::vector<std::string> names;
  for (std::string_view line : lines_of(short_listing)) {
    // go doc lists a type's constructors and constants indented under it.
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::string name;
    if (line.starts_with("func (")) {
      if (!methods_only) continue;
      const auto close = line.find(") ");
      if (close == std::string_view::npos) continue;
      name = identifier_at(line.substr(close + 2));
    } else if (!methods_only) {
      name = name_declared(line);
    }
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

std::vector<std::string> near_names(std::string_view wanted, const std::vector<std::string>& names) {
  const std::string want = lowercase(wanted);
  const std::size_t allowed = std::max<std::size_t>(2, want.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& name : names) {
    const std::string candidate = lowercase(name);
    std::size_t distance = edit_distance(want, candidate);
    const bool contains = want.size() >= 3 && (candidate.find(want) != std::string::npos ||
                                               want.find(candidate) != std::string::npos);
    if (distance > allowed && !contains) continue;
    if (contains) distance = std::min(distance, allowed);
    scored.emplace_back(distance, name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> near;
  for (std::size_t i = 0; i < scored.size() && i < 5; ++i) near.push_back(scored[i].second);
  return near;
}

}  // namespace kg::sandbox
