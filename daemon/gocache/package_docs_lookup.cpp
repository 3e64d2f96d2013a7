#include "package_docs_lookup.hpp"

#include <algorithm>

#include "package_docs_text.hpp"
#include "sandbox_paths.hpp"

namespace kg::sandbox {
namespace {

// After a failed symbol lookup the command lists the names to suggest from, after these lines.
constexpr std::string_view kNamesMarker = "@@kode-gopher names@@";
constexpr std::string_view kMethodsMarker = "@@kode-gopher methods@@";

std::string_view between(std::string_view text, std::string_view start, std::string_view end) {
  const auto from = text.find(start);
  if (from == std::string_view::npos) return {};
  text.remove_prefix(from + start.size());
  return text.substr(0, text.find(end));
}

// Name, or Type.Method: Go identifiers joined by dots.
bool is_symbol_path(const std::string& symbol) {
  bool at_start = true;
  for (char c : symbol) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (c == '.') {
      if (at_start) return false;
      at_start = true;
    } else if (letter || (digit && !at_start)) {
      at_start = false;
    } else {
      return false;
    }
  }
  return !at_start;
}

}  // namespace

PackageDocsLookup::PackageDocsLookup(const std::vector<std::string>& curated, std::string package,
                                     std::string symbol)
    : package_(std::move(package)), symbol_(std::move(symbol)) {
  if (std::find(curated.begin(), curated.end(), package_) == curated.end()) {
    std::string list;
    for (const auto& p : curated) list += (list.empty() ? "" : ", ") + p;
    throw plugin::InvalidInputError("package \"" + package_ +
                                    "\" is not a curated package; curated packages: " + list);
  }
  if (!symbol_.empty() && !is_symbol_path(symbol_)) {
    throw plugin::InvalidInputError("symbol \"" + symbol_ +
                                    "\" must look like Name or Type.Method (letters, digits, '_')");
  }
}

plugin::CommandSpec PackageDocsLookup::command() const {
  plugin::CommandSpec spec;
  // Both are checked above to hold only import-path or identifier characters.
  const std::string go_doc = "cd " + std::string(kSandboxLockfilePath) + " && ";
  if (symbol_.empty()) {
    spec.command = go_doc + "exec go doc " + package_;
  } else {
    // A symbol go doc does not know: list the package's names (and the type's methods for
    // Type.Method), so docs() can say which were meant.
    const auto dot = symbol_.find('.');
    spec.command = go_doc + "go doc " + package_ + " " + symbol_ +
                   "; status=$?; if [ $status -ne 0 ]; then echo '" + std::string(kNamesMarker) +
                   "'; go doc -short " + package_ + " 2>/dev/null; echo '" +
                   std::string(kMethodsMarker) + "'; " +
                   (dot == std::string::npos
                        ? std::string()
                        : "go doc -short " + package_ + " " + symbol_.substr(0, dot) +
                              " 2>/dev/null; ") +
                   "fi; exit $status";
  }
  spec.timeout_ms = 60'000;
  return spec;
}

std::vector<std::string> PackageDocsLookup::suggestions(std::string_view listing) const {
  const std::vector<std::string> names =
      declared_names(between(listing, kNamesMarker, kMethodsMarker), false);
  const auto dot = symbol_.find('.');
  if (dot == std::string::npos) return near_names(symbol_, names);
  const std::string type = symbol_.substr(0, dot), member = symbol_.substr(dot + 1);
  std::vector<std::string> near;
  if (std::find(names.begin(), names.end(), type) != names.end()) {
    const std::vector<std::string> methods =
        declared_names(between(listing, kMethodsMarker, "\n@@"), true);
    for (const std::string& method : near_names(member, methods)) near.push_back(type + "." + method);
  } else {
    for (const std::string& other : near_names(type, names)) near.push_back(other + "." + member);
  }
  return near;
}

std::string PackageDocsLookup::docs(const plugin::CommandOutcome& outcome) const {
  if (outcome.exit_code == 0) {
    return symbol_.empty() ? package_index(outcome.stdout_text) : outcome.stdout_text;
  }
  std::string message = without_go_noise(outcome.stderr_text);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (message.empty()) message = "go doc failed with exit code " + std::to_string(outcome.exit_code);
  message = "go doc " + package_ + (symbol_.empty() ? "" : " " + symbol_) + ": " + message;
  if (symbol_.empty()) throw plugin::InvalidInputError(message);
  const std::vector<std::string> near = suggestions(outcome.stdout_text);
  if (near.empty()) {
    message += ". No exported name is near it: leave symbol out for the package's index of names";
  } else {
    message += ". Did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) {
      message += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
    }
    message += "? Ask for one of them as symbol";
  }
  throw plugin::InvalidInputError(message);
}

}  // namespace kg::sandbox
