#include "build_output.hpp"

#include <charconv>

#include "utf8_text.hpp"

namespace kg::go_program {
namespace {

bool parse_int(std::string_view text, int& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

}  // namespace

std::string strip_sandbox_paths(std::string_view text) {
  std::string out(text);
  replace_all(out, "/app/", "");
  replace_all(out, "kode_gopher_user/", "");
  return out;
}

std::vector<plugin::Diagnostic> parse_diagnostics(std::string_view output) {
  std::vector<plugin::Diagnostic> diagnostics;
  std::size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("./")) line.remove_prefix(2);
    if (line.starts_with("/app/")) line.remove_prefix(5);
    const auto go = line.find(".go:");
    if (go == std::string_view::npos || line.find(' ') < go) continue;
    plugin::Diagnostic d;
    d.file = std::string(line.substr(0, go + 3));
    auto rest = line.substr(go + 4);
    const auto colon1 = rest.find(':');
    if (colon1 == std::string_view::npos || !parse_int(rest.substr(0, colon1), d.line)) continue;
    rest.remove_prefix(colon1 + 1);
    const auto colon2 = rest.find(':');
    if (colon2 != std::string_view::npos && parse_int(rest.substr(0, colon2), d.col)) {
      rest.remove_prefix(colon2 + 1);
    }
    if (rest.starts_with(' ')) rest.remove_prefix(1);
    d.message = strip_sandbox_paths(rest);
    diagnostics.push_back(std::move(d));
  }
  return diagnostics;
}

std::string elide_middle(std::string_view text, std::size_t keep) {
  if (text.size() <= 2 * keep) return std::string(text);
  // Cut between characters, never inside one: the sandbox sends valid UTF-8, and half a
  // character at either cut would make the result's stdout invalid.
  const auto head = json::utf8_boundary_before(text, keep);
  const auto tail = json::utf8_boundary_after(text, text.size() - keep);
  std::string out(text.substr(0, head));
  out += "\n... [" + std::to_string(tail - head) + " bytes elided] ...\n";
  out += text.substr(tail);
  return out;
}

}  // namespace kg::go_program
