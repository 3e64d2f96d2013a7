// The /execute extension "read_file": one file of the workdir read right after the command ends
// and returned in the same response (base64), so a client that runs a program and then wants its
// result file needs one round trip, not two. Confined like GET /download/<path>.
// Pure apart from reading the file; called on the thread serving /execute.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "path_confinement.hpp"
#include "sandbox_api/execute_answer.hpp"
#include "sandbox_api/execute_request.hpp"

namespace kg::sandbox {

// The largest read_file.max_bytes /execute accepts (the JSON body carries it as base64).
inline constexpr std::uint64_t kMaxFileAfterCommandBytes = wire::sandbox_api::kMaxReadFileBytes;

// What the /execute answer's "file" member carries (lib/wire/sandbox_api).
using FileAfterCommand = wire::sandbox_api::FileAfterCommand;

// Never throws for the file's sake: every reason it cannot be read is `error`.
FileAfterCommand read_file_after_command(const WorkdirConfinement& confinement,
                                         std::string_view path, std::uint64_t max_bytes);

}  // namespace kg::sandbox
