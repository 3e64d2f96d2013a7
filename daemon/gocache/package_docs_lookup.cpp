#include "package_docs_lookup.hpp"

#include <algorithm>

#include "sandbox_paths.hpp"

namespace kg::sandbox {
namespace {

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
  spec.command = "cd " + std::string(kSandboxLockfilePath) + " && exec go doc " + package_ +
                 (symbol_.empty() ? "" : " " + symbol_);
  spec.timeout_ms = 60'000;
  return spec;
}

std::string PackageDocsLookup::docs(const plugin::CommandOutcome& outcome) const {
  if (outcome.exit_code != 0) {
    throw plugin::InvalidInputError("go doc " + package_ + (symbol_.empty() ? "" : " " + symbol_) +
                                    ": " + outcome.stderr_text);
  }
  return outcome.stdout_text;
}

}  // namespace kg::sandbox
