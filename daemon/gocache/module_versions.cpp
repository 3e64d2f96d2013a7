#include "module_versions.hpp"

#include <sstream>

namespace kg::sandbox {

std::set<ModuleVersion> go_sum_modules(std::string_view go_sum) {
  std::set<ModuleVersion> found;
  std::istringstream lines{std::string(go_sum)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string path, version, hash, extra;
    if (!(words >> path >> version >> hash) || (words >> extra)) continue;
    if (version.ends_with("/go.mod")) version.resize(version.size() - 7);
    found.insert({path, version});
  }
  return found;
}

std::string escape_module_text(std::string_view text) {
  if (text.empty()) return {};
  std::string escaped;
  for (const char c : text) {
    if (c >= 'A' && c <= 'Z') {
      escaped += '!';
      escaped += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '~' || c == '/' || c == '+' || c == '-') {
      escaped += c;
    } else {
      return {};
    }
  }
  // No segment may climb out or vanish: "..", ".", "" (a leading, trailing or double '/').
  std::size_t start = 0;
  while (start <= escaped.size()) {
    auto end = escaped.find('/', start);
    if (end == std::string::npos) end = escaped.size();
    const std::string_view segment(escaped.data() + start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return {};
    start = end + 1;
  }
  return escaped;
}

std::string module_download_stem(const ModuleVersion& module) {
  const auto path = escape_module_text(module.path);
  const auto version = escape_module_text(module.version);
  if (path.empty() || version.empty() || version.find('/') != std::string::npos) return {};
  return "cache/download/" + path + "/@v/" + version;
}

}  // namespace kg::sandbox
