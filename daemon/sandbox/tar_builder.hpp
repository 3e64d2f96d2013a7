// Packs a program's files into one in-memory tar (ustar/pax via libarchive) so that a whole tree
// reaches the sandbox in a single /upload-tar round trip. Called from a call thread.
#pragma once

#include <span>
#include <string>

#include "sandbox_handle.hpp"

namespace kg::sandbox {

// Throws std::runtime_error naming the file when libarchive refuses an entry.
std::string build_tar(std::span<const plugin::SourceFile> files);

}  // namespace kg::sandbox
