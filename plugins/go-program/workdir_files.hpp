// What a Go runtime plugin puts in /app for a normalized program: the program, and without a
// go.mod of the caller's the curated lockfile's go.mod and go.sum, so versions are reproducible,
// compiled builds hit the prewarmed cache and the Yaegi runner's symbol tables match. Pure.
#pragma once

#include <vector>

#include "host_services.hpp"
#include "program_normalizer.hpp"

namespace kg::go_program {

std::vector<plugin::SourceFile> workdir_files(const NormalizedProgram& program,
                                              const plugin::ToolchainInfo& toolchain);

}  // namespace kg::go_program
