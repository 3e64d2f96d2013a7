// Gathers the files of a program for `kode-gopher exec`: one file, a directory tree or stdin,
// as the ExecuteRequest's `files` map (relative path with '/' separators → content).
// Called on the main thread before anything is sent to the daemon.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>

namespace kg::cli {

using ProgramFiles = std::map<std::string, std::string>;

struct ProgramLimits {
  std::size_t max_files = 1000;
  std::uint64_t max_total_bytes = 8ull << 20;
};

// A file → {"<basename>": content}. A directory → every regular file under it named *.go,
// go.mod or go.sum, keyed by its path relative to the directory; names starting with '.' (.git,
// editor files) are skipped. A symlink to a program file or a directory is followed only when
// its target stays inside the directory. Throws UsageError (cli_errors.hpp) naming the path:
// missing, unreadable, an escaping or broken symlink, no Go files, over a limit.
ProgramFiles collect_program(const std::string& path, const ProgramLimits& limits = {});

// Standard input → {"main.go": content}. Throws UsageError when it is over the size limit.
ProgramFiles collect_program_from_stream(std::istream& in, const ProgramLimits& limits = {});

// "8 MiB", "12 KiB" or "1000 bytes": a limit as a person reads it.
std::string describe_byte_count(std::uint64_t bytes);

}  // namespace kg::cli
