// Removes a folder tree even where Go made it read-only (a module cache). Never throws.
#pragma once

#include <string>

namespace kg::sandbox {

void remove_tree(const std::string& path) noexcept;

}  // namespace kg::sandbox
