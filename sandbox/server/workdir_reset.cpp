#include "workdir_reset.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "unique_fd.hpp"

namespace kg::sandbox {
namespace {

struct Removal {
  std::uint64_t removed = 0;
  std::string first_failure;

  void fail(const std::string& path, const char* action, int error_number) {
    if (first_failure.empty()) {
      first_failure = "cannot " + std::string(action) + " " + path + ": " +
                      std::strerror(error_number);
    }
  }
};

std::vector<std::string> entry_names(int directory_fd) {
  std::vector<std::string> names;
  const int listing_fd = ::dup(directory_fd);  // closedir() closes the descriptor it was given
  DIR* listing = listing_fd < 0 ? nullptr : ::fdopendir(listing_fd);
  if (listing == nullptr) {
    if (listing_fd >= 0) ::close(listing_fd);
    return names;
  }
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(listing);
  return names;
}

// Removes everything inside the directory open as `directory_fd`. Every step works relative to
// an open descriptor with O_NOFOLLOW, so a symlink is removed, never entered.
void remove_children(int directory_fd, const std::string& display_path, Removal& removal) {
  for (const std::string& name : entry_names(directory_fd)) {
    const std::string path = display_path + "/" + name;
    struct stat info {};
    if (::fstatat(directory_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) removal.fail(path, "inspect", errno);
      continue;
    }
    if (S_ISDIR(info.st_mode)) {
      if ((info.st_mode & 0700) != 0700) ::fchmodat(directory_fd, name.c_str(), 0700, 0);
      const UniqueFd child(
          ::openat(directory_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child) {
        removal.fail(path, "open", errno);
        continue;
      }
      remove_children(child.get(), path, removal);
    }
    if (::unlinkat(directory_fd, name.c_str(), S_ISDIR(info.st_mode) ? AT_REMOVEDIR : 0) == 0) {
      ++removal.removed;
    } else if (errno != ENOENT) {
      removal.fail(path, "remove", errno);
    }
  }
}

}  // namespace

std::uint64_t remove_workdir_contents(const std::filesystem::path& workdir) {
  const UniqueFd root(::open(workdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root) {
    throw std::runtime_error("Cannot open the workdir " + workdir.string() + ": " +
                             std::strerror(errno));
  }
  Removal removal;
  remove_children(root.get(), workdir.string(), removal);
  if (!removal.first_failure.empty()) {
    throw std::runtime_error("Could not empty the workdir (" + std::to_string(removal.removed) +
                             " entries removed): " + removal.first_failure);
  }
  return removal.removed;
}

}  // namespace kg::sandbox
