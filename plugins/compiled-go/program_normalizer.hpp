// Turns the caller's file map into the tree that is built in /app (CONTRACTS.md §3): checks
// paths, finds the entry package among the root files, decides the mode, and adds what the
// build needs (go.mod when the caller sent none). Throws plugin::InvalidInputError with a
// message that tells the caller what to change. Pure; called from call threads.
#pragma once

#include <string>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::compiled_go {

struct NormalizedProgram {
  plugin::Mode mode = plugin::Mode::verbatim;
  std::vector<plugin::SourceFile> files;  // what to upload, user files first
  bool user_go_mod = false;
};

struct NormalizeOptions {
  std::string go_version;  // "go1.26.8": the go directive of a generated go.mod
};

NormalizedProgram normalize_program(const std::vector<plugin::SourceFile>& files,
                                    const NormalizeOptions& options);

// Checks one path: relative, '/'-separated, no empty, '.' or '..' segments, no NUL or '\\'.
// Throws plugin::InvalidInputError.
void check_source_path(const std::string& path);

}  // namespace kg::compiled_go
