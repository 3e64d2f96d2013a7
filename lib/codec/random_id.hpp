// Ids nobody can guess: random bytes from the kernel's CSPRNG (getrandom), written as lowercase
// hex. MCP session ids (team mode) and task ids (mcp/tasks) are these. Any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kg::codec {

// 2 * bytes hex digits. Throws std::runtime_error naming `what` ("a task id") when the kernel
// cannot give random bytes.
std::string random_hex_id(std::size_t bytes, std::string_view what);

}  // namespace kg::codec
