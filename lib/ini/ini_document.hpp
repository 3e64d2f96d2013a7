// kode-gopher's INI format (docs/configuration.md, "Syntax"), read once: every section, key and
// value with the line it came from, and every malformed line as a problem with its line number.
// The one reader of config files: the daemon's config loader and the CLI both use it, so a value
// and an error always name `file:line`. Pure functions; no shared state; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kg::ini {

// Where a value or a problem is: "file:line", or just "file" when it is about the whole file.
struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0: the whole file

  std::string to_string() const;
};

struct IniEntry {
  std::string section;  // as written, trimmed; empty for a key before any section header
  std::string key;      // as written, trimmed
  std::string value;    // verbatim after trimming: no quotes, no trailing comments
  int line = 0;
};

struct IniProblem {
  int line = 0;         // 0: the whole file (missing, a directory, unreadable)
  std::string message;  // e.g. "expected \"key = value\", got \"garbage\""
};

struct IniDocument {
  std::string path;
  std::vector<IniEntry> entries;     // in file order, duplicates included
  std::vector<IniProblem> problems;  // in file order; a malformed line yields no entry
  // Section headers in file order, each spelling once (a section may have no keys).
  std::vector<std::string> sections;

  // The last entry of `key` in `section` (both compared case-insensitively: the last of a
  // repeated key wins); nullptr when the file does not set it.
  const IniEntry* find(std::string_view section, std::string_view key) const;

  SourceLocation location_of(const IniEntry& entry) const { return {path, entry.line}; }
};

// Lowercase ASCII, how section and key names compare.
std::string lowercase(std::string_view text);

// Parses `text` as the file `path` (used only in locations). A UTF-8 byte order mark is skipped.
IniDocument parse_ini_text(std::string_view text, std::string path);

// Reads and parses the file. Never throws for the file's own problems: a file that is missing,
// a directory, not a regular file or unreadable becomes one problem with line 0.
IniDocument read_ini_file(const std::string& path);

}  // namespace kg::ini
