#include "install_layout.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "build_paths.hpp"

namespace kg {
namespace fs = std::filesystem;
namespace {

fs::path own_directory() {
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("Cannot find the daemon's own executable: " + ec.message());
  return exe.parent_path();
}

std::string first_existing(const std::vector<fs::path>& candidates, const std::string& what,
                           const std::string& key) {
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  std::string looked;
  for (const auto& candidate : candidates) looked += "\n  " + candidate.string();
  throw std::runtime_error("Cannot find " + what + "; looked in:" + looked + "\nSet " + key +
                           " in the config file to its path");
}

// The first candidate that exists, or empty: for the parts an install may lack.
std::string first_existing_or_none(const std::vector<fs::path>& candidates) {
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return {};
}

std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = fs::path(dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Asks the Go toolchain itself, so GOROOT and version can never disagree with the binary.
std::pair<std::string, std::string> go_env(const std::string& go_binary) {
  Poco::Pipe out;
  Poco::Process::Args args{"env", "GOROOT", "GOVERSION"};
  auto handle = Poco::Process::launch(go_binary, args, nullptr, &out, &out);
  Poco::PipeInputStream in(out);
  std::string root, version;
  std::getline(in, root);
  std::getline(in, version);
  const int rc = handle.wait();
  if (rc != 0 || root.empty() || !version.starts_with("go")) {
    throw std::runtime_error("`" + go_binary + " env GOROOT GOVERSION` failed (exit " +
                             std::to_string(rc) + "): " + root);
  }
  return {root, version};
}

}  // namespace

std::vector<std::string> resolve_plugin_dirs(const config::DaemonConfig& config) {
  if (!config.plugin_dirs.empty()) return config.plugin_dirs;
  const fs::path bin = own_directory();
  std::vector<std::string> dirs;
  const fs::path installed = bin / kPluginDirFromBindir;
  if (fs::is_directory(installed)) {
    dirs.push_back(installed.lexically_normal().string());
  } else {
    // Build tree: each plugin is built in its own folder under build/plugins/.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(bin / ".." / "plugins", ec)) {
      if (entry.is_directory()) dirs.push_back(entry.path().lexically_normal().string());
    }
  }
  return dirs;
}

InstallLayout resolve_install_layout(const config::DaemonConfig& config) {
  const fs::path bin = own_directory();
  InstallLayout layout;
  layout.plugin_dirs = resolve_plugin_dirs(config);
  layout.sandbox_server_binary =
      !config.sandbox_server_binary.empty()
          ? config.sandbox_server_binary
          : first_existing({bin / kLibexecFromBindir / "kode-gopher-sandbox",
                            bin / ".." / "sandbox" / "server" / "kode-gopher-sandbox"},
                           "kode-gopher-sandbox", "[sandbox] server_binary");
  layout.cacheprog_binary =
      !config.cacheprog_binary.empty()
          ? config.cacheprog_binary
          : first_existing({bin / kLibexecFromBindir / "kode-gopher-cacheprog",
                            bin / ".." / "sandbox" / "cacheprog" / "kode-gopher-cacheprog"},
                           "kode-gopher-cacheprog", "[sandbox] cacheprog_binary");
  layout.fastbuild_binary = first_existing(
      {fs::path(layout.cacheprog_binary).parent_path() / "kode-gopher-fastbuild",
       bin / kLibexecFromBindir / "kode-gopher-fastbuild",
       bin / ".." / "sandbox" / "fastbuild" / "kode-gopher-fastbuild"},
      "kode-gopher-fastbuild", "nothing: reinstall kode-gopher");
  // Optional: a configured path must exist, a missing default only disables the yaegi plugin.
  layout.yaegi_runner_binary =
      !config.yaegi_runner_binary.empty()
          ? first_existing({config.yaegi_runner_binary}, "kode-gopher-yaegi",
                           "[sandbox] yaegi_runner_binary")
          : first_existing_or_none({bin / kLibexecFromBindir / "kode-gopher-yaegi",
                                    bin / ".." / "sandbox" / "yaegi-runner" / "kode-gopher-yaegi"});
  if (!layout.yaegi_runner_binary.empty()) {
    layout.yaegi_cloud_runner_binary = first_existing_or_none(
        {fs::path(layout.yaegi_runner_binary).parent_path() / "kode-gopher-yaegi-cloud"});
  }
  layout.lockfile_dir = first_existing({bin / kLockfileFromBindir / "go.mod",
                                        bin / ".." / "sandbox" / "lockfile" / "go.mod"},
                                       "the curated lockfile (go.mod)", "nothing: reinstall kode-gopher");
  layout.lockfile_dir = fs::path(layout.lockfile_dir).parent_path().string();
  // Only local sandboxes run in bubblewrap: the kubernetes provider's run in pods, and the team
  // daemon's image has none.
  layout.bwrap_path = find_on_path(config.bwrap_path);
  if (layout.bwrap_path.empty() && config.sandbox_provider != "kubernetes") {
    throw std::runtime_error("Cannot find bubblewrap (`" + config.bwrap_path +
                             "`) on PATH; install it (Debian: apt-get install bubblewrap) or set "
                             "[sandbox] bwrap");
  }
  // The Go the build used before the one on PATH: the Go helpers were built with it and the
  // shell that auto-starts the daemon may not have it (or has an older Go) on PATH.
  const std::string build_go = std::string(kBuildGoRoot) + "/bin/go";
  std::string go_binary;
  if (!config.go_root.empty()) {
    go_binary = config.go_root + "/bin/go";
  } else if (::access(build_go.c_str(), X_OK) == 0) {
    go_binary = build_go;
  } else {
    go_binary = find_on_path("go");
  }
  if (go_binary.empty()) {
    throw std::runtime_error("Cannot find the Go toolchain: neither the one kode-gopher was built "
                             "with (" + std::string(kBuildGoRoot) + ") nor a `go` on PATH; run "
                             "scripts/setup.sh, install Go 1.24 or newer, or set [sandbox] go_root");
  }
  auto [root, version] = go_env(go_binary);
  layout.go_root = config.go_root.empty() ? root : config.go_root;
  layout.go_version = version;
  return layout;
}

}  // namespace kg
