#include "remove_tree.hpp"

#include <filesystem>

namespace kg::sandbox {
namespace fs = std::filesystem;

void remove_tree(const std::string& path) noexcept {
  std::error_code ec;
  // Go marks module cache folders read-only; give the owner write access back first.
  for (auto it = fs::recursive_directory_iterator(
           path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
  }
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path, ec);
}

}  // namespace kg::sandbox
