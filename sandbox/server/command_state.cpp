#include "command_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "workdir_reset.hpp"

namespace kg::sandbox {
namespace {

std::filesystem::path persist_link(const SandboxServerOptions& options) {
  return options.workdir / "persist";
}

}  // namespace

void prepare_clean_state(const SandboxServerOptions& options) {
  for (const auto& dir : options.scratch_dirs) {
    try {
      remove_workdir_contents(dir);
    } catch (...) {
      std::throw_with_nested(std::runtime_error("Cannot give the build a clean " + dir.string()));
    }
  }
  if (options.persist_dir.empty()) return;
  // Neither through the link nor by its own path (a go.mod replace) may a build read it.
  const auto link = persist_link(options);
  struct stat info {};
  if (::lstat(link.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) ::unlink(link.c_str());
  if (::chmod(options.persist_dir.c_str(), 0) != 0) {
    throw std::runtime_error("Cannot close " + options.persist_dir.string() + " during the build: " +
                             std::strerror(errno));
  }
}

void link_persist_folder(const SandboxServerOptions& options) noexcept {
  if (options.persist_dir.empty()) return;
  ::chmod(options.persist_dir.c_str(), 0755);
  // An upload may have put a real `persist` there; it is left alone (the program's own files).
  [[maybe_unused]] const int rc = ::symlink(options.persist_dir.c_str(), persist_link(options).c_str());
}

void make_out_folder(const SandboxServerOptions& options) noexcept {
  [[maybe_unused]] const int rc = ::mkdir((options.workdir / "out").c_str(), 0755);
}

}  // namespace kg::sandbox
