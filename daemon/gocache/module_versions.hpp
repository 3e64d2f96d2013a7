// The module versions a tidied go.sum names, and where the Go module cache keeps their downloads
// (cache/download/<escaped path>/@v/<escaped version>.{info,mod,zip,ziphash}): what a sandbox's
// build needs of the tidy module cache, and nothing else (tidy_module_cache.hpp).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace kg::sandbox {

struct ModuleVersion {
  std::string path;     // as written in go.mod: github.com/BurntSushi/toml
  std::string version;  // v1.2.3 (a go.sum line's "/go.mod" suffix removed)
  auto operator<=>(const ModuleVersion&) const = default;
};

// Every module version of a go.sum (its "<path> <version>[/go.mod] <hash>" lines); lines of
// another shape are skipped.
std::set<ModuleVersion> go_sum_modules(std::string_view go_sum);

// The Go module cache's case encoding of a path or version: each upper-case letter becomes '!'
// and its lower-case form (golang.org/x/mod/module.EscapePath). Empty when the text cannot be a
// module path or version (empty, "..", a '!' of its own, a character outside [A-Za-z0-9._~/+-]),
// so nothing from a go.sum can name a file outside the cache.
std::string escape_module_text(std::string_view text);

// "cache/download/<escaped path>/@v/<escaped version>" (the files' stem), or empty when either
// part cannot be escaped.
std::string module_download_stem(const ModuleVersion& module);

}  // namespace kg::sandbox
