// Runs `go mod tidy` on the host for programs that import packages outside the curated
// lockfile: sandboxes have no network, and this is the one step that may reach the Go module
// proxy. It never runs the program's code: tidy only reads import lines. To keep it that way it
// allows no VCS access (GOPROXY without `direct`), no toolchain downloads (GOTOOLCHAIN=local) and
// no workspace or user go env (GOWORK=off, GOENV=off).
//
// Modules it fetches land in one module cache per daemon (the "extra" cache), which sandboxes
// read as a file:// module proxy. Thread-safe: the go command locks its module cache itself.
#pragma once

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "host_services.hpp"
#include "sandbox_handle.hpp"

namespace kg::sandbox {

class ModuleTidier {
 public:
  // go_binary: the host's go; lockfile_dir: go.mod + go.sum to start from; base_modcache: the
  // curated modules (tried first, offline); extra_modcache: where new modules go; work_root: a
  // folder for temporary copies of programs.
  ModuleTidier(std::string go_binary, std::string lockfile_dir, std::string base_modcache,
               std::string extra_modcache, std::string work_root, plugin::Logger& logger);

  // Throws plugin::SandboxError when the files cannot be laid out or the daemon is stopping.
  plugin::TidyOutcome tidy(std::span<const plugin::SourceFile> files, std::uint32_t timeout_ms);
  // At shutdown: kills every tidy under way (their calls fail at once) and refuses new ones.
  void stop() noexcept { stopping_ = true; }

  const std::string& extra_modcache() const noexcept { return extra_modcache_; }

 private:
  std::string go_binary_, lockfile_dir_, base_modcache_, extra_modcache_, work_root_;
  std::string upstream_proxy_;  // the host's GOPROXY without `direct` and `off`
  plugin::Logger& logger_;
  std::atomic<bool> stopping_{false};
};

// One line per module whose required version differs between two go.mod files.
std::vector<std::string> moved_versions(const std::string& before, const std::string& after);

}  // namespace kg::sandbox
