// Turns the percent-encoded <path> of /download, /list, /exists (and the `dir` of /upload-tar)
// into a real path that is guaranteed to lie inside the workdir. Symlinks are resolved before
// the check, so a link inside the workdir that points outside is an escape like `../x` is.
//
// Used by the file routes from any server thread: WorkdirConfinement is immutable after
// construction.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kg::sandbox {

// The path is malformed: a bad percent escape, a NUL byte, or it cannot be resolved (HTTP 400).
class InvalidPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The path resolves outside the workdir (HTTP 403).
class PathEscapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Decodes %XX escapes (either case of hex digit); '+' stays '+' because this is a path, not a
// form. Throws InvalidPathError for a '%' not followed by two hex digits and for an encoded NUL.
std::string percent_decode(std::string_view encoded);

struct ConfinedPath {
  std::filesystem::path real_path;  // absolute; symlinks in its existing part resolved
  bool exists = false;
};

class WorkdirConfinement {
 public:
  // Throws std::runtime_error when the workdir does not exist or is not a directory.
  explicit WorkdirConfinement(const std::filesystem::path& workdir);

  // `decoded` is relative to the workdir (empty means the workdir itself); an absolute path is
  // taken as it is and must still lie inside the workdir. For a path that does not exist yet the
  // deepest existing parent is resolved and the rest appended. Throws PathEscapeError when the
  // result lies outside the workdir, InvalidPathError when it cannot be resolved (a symlink loop).
  ConfinedPath resolve(std::string_view decoded) const;

  const std::filesystem::path& workdir() const noexcept { return workdir_; }

 private:
  std::filesystem::path workdir_;  // real path
};

}  // namespace kg::sandbox
