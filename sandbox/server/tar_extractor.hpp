// Extracts an uploaded tar (POST /upload-tar) under a directory of the workdir, refusing every
// entry that could reach outside it or create something other than plain files and folders.
// Entries are checked before libarchive sees them, so each refusal names the entry and why.
//
// Called by the /upload-tar route from a server thread; each call is independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>

namespace kg::sandbox {

// An entry is not acceptable: an absolute path, a '..' segment, a link, a device, or it would
// be written through a symlink already in the destination (HTTP 400).
class TarEntryRejected : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The tar is bigger than allowed, in bytes or in entries (HTTP 413).
class TarLimitExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The body is not a readable tar archive (HTTP 400).
class TarFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TarLimits {
  std::uint64_t max_total_bytes = 256ull << 20;  // sum of the regular files' sizes
  std::uint64_t max_entries = 100'000;
};

struct TarExtractionSummary {
  std::uint64_t files = 0;  // regular files written
  std::uint64_t bytes = 0;  // their total size
};

// Fills `buffer` with the next bytes of the tar and returns how many; 0 means the end.
using TarByteSource = std::function<std::size_t(std::span<char> buffer)>;

// `destination` must exist and be a real path (no symlinks in it). Files become 0644, or 0755
// when the tar marks them executable; directories 0755; modification times are kept.
// Throws TarEntryRejected, TarLimitExceeded, TarFormatError, or std::runtime_error when a file
// cannot be written (disk full...). Entries before a refused one stay written.
TarExtractionSummary extract_tar(const TarByteSource& source,
                                 const std::filesystem::path& destination,
                                 const TarLimits& limits);

}  // namespace kg::sandbox
