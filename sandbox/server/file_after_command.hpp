// The /execute extension "read_file": one file of the workdir read right after the command ends
// and returned in the same response (base64), so a client that runs a program and then wants its
// result file needs one round trip, not two. Confined like GET /download/<path>.
// Pure apart from reading the file; called on the thread serving /execute.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "path_confinement.hpp"

namespace kg::sandbox {

// The largest read_file.max_bytes /execute accepts (the JSON body carries it as base64).
inline constexpr std::uint64_t kMaxFileAfterCommandBytes = 16ull << 20;

struct FileAfterCommand {
  std::string path;     // as requested
  bool exists = false;  // false: no such file (content and error empty)
  std::string content;  // the bytes, when exists and error is empty
  std::string error;    // why it was not read: outside the workdir, a directory, larger than max
};

// Never throws for the file's sake: every reason it cannot be read is `error`.
FileAfterCommand read_file_after_command(const WorkdirConfinement& confinement,
                                         std::string_view path, std::uint64_t max_bytes);

}  // namespace kg::sandbox
