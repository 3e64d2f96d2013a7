// Runs `go mod tidy` on the host for programs that import packages outside the curated
// lockfile: sandboxes have no network, and this is the one step that may reach the Go module
// proxy. It never runs the program's code: tidy only reads import lines. To keep it that way it
// allows no VCS access (GOPROXY without `direct`), no toolchain downloads (GOTOOLCHAIN=local) and
// no workspace or user go env (GOWORK=off, GOENV=off).
//
// Modules it fetches land in the owner's folder of the tidy module cache (tidy_module_cache.hpp);
// the sandbox that asked reads the ones its go.sum names as a file:// module proxy, through
// links in its own folder. Thread-safe: the go command locks its module cache itself.
#pragma once

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "host_services.hpp"
#include "sandbox_handle.hpp"
#include "tidy_module_cache.hpp"

namespace kg::sandbox {

class ModuleTidier {
 public:
  // go_binary: the host's go; lockfile_dir: go.mod + go.sum to start from; base_modcache: the
  // curated modules (tried first, offline); modules: where new modules go (outlives this);
  // work_root: a folder for temporary copies of programs.
  ModuleTidier(std::string go_binary, std::string lockfile_dir, std::string base_modcache,
               TidyModuleCache& modules, std::string work_root, plugin::Logger& logger);

  // Tidies for `owner` (SessionOwner::id), in that owner's module cache; when it succeeds and
  // link_folder is not empty, the modules the new go.sum names are linked there
  // (TidyModuleCache::link_for). Throws plugin::SandboxError when the files cannot be laid out,
  // the modules cannot be linked or the daemon is stopping.
  plugin::TidyOutcome tidy(std::string_view owner, std::span<const plugin::SourceFile> files,
                           std::uint32_t timeout_ms, const std::string& link_folder = {});
  // At shutdown: kills every tidy under way (their calls fail at once) and refuses new ones.
  void stop() noexcept { stopping_ = true; }

  const TidyModuleCache& modules() const noexcept { return modules_; }

 private:
  std::string go_binary_, lockfile_dir_, base_modcache_;
  TidyModuleCache& modules_;
  std::string work_root_;
  std::string upstream_proxy_;  // the host's GOPROXY without `direct` and `off`
  plugin::Logger& logger_;
  std::atomic<bool> stopping_{false};
};

// One line per module whose required version differs between two go.mod files.
std::vector<std::string> moved_versions(const std::string& before, const std::string& after);

}  // namespace kg::sandbox
