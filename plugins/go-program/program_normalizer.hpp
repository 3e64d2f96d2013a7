// Turns the caller's file map into the tree that is built in /app (docs/contracts.md §3): checks
// paths, finds the entry package among the root files, decides the mode, and adds what the
// build needs (the wrapper around a snippet, blank imports). Throws plugin::InvalidInputError with a
// message that tells the caller what to change. Pure; called from call threads.
#pragma once

#include <string>
#include <vector>

#include "runtime_plugin.hpp"

namespace kg::go_program {

struct NormalizedProgram {
  plugin::Mode mode = plugin::Mode::verbatim;
  std::vector<plugin::SourceFile> files;  // what to upload: user files, then generated ones
  bool user_go_mod = false;               // else the build takes go.mod/go.sum from the lockfile
};

// extra_imports become blank imports in a generated kg_extra_imports.go.
NormalizedProgram normalize_program(const std::vector<plugin::SourceFile>& files,
                                    const std::vector<std::string>& extra_imports);

// Checks one path: relative, '/'-separated, no empty, '.' or '..' segments, no NUL or '\\'.
// Throws plugin::InvalidInputError.
void check_source_path(const std::string& path);

}  // namespace kg::go_program
