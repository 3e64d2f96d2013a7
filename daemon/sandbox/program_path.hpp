// Where a program named without a folder is found on PATH, as execvp would find it.
#pragma once

#include <optional>
#include <string>

namespace kg::sandbox {

// `program` itself when it holds a '/' and is executable; else the first executable match in
// $PATH (/usr/local/bin:/usr/bin:/bin when unset); nullopt when none.
std::optional<std::string> find_program(const std::string& program);

}  // namespace kg::sandbox
