// Finds the files the daemon needs besides its config: plugin folders, the sandbox server, the
// cache program, the Yaegi runner (optional: without it the yaegi plugin disables itself), the
// Go toolchain. Looks relative to the daemon's own executable, first in the
// installed layout (<prefix>/bin, <prefix>/<libdir>/kode-gopher/plugins,
// <prefix>/libexec/kode-gopher), then in the Meson build tree (build/daemon, build/plugins/*,
// build/sandbox/*), so both `meson install` and a plain build run without configuration.
// Config values, when set, always win. The Go toolchain is, in order: [sandbox] go_root, the one
// the build used (meson's go_root option, see meson.build), the `go` on PATH.
#pragma once

#include <string>
#include <vector>

#include "daemon_config.hpp"

namespace kg {

struct InstallLayout {
  std::vector<std::string> plugin_dirs;
  std::string sandbox_server_binary;
  std::string cacheprog_binary;
  std::string fastbuild_binary;  // kode-gopher-fastbuild (compiled-go's fast build path)
  std::string yaegi_runner_binary;  // empty: this install has no Yaegi runner
  // kode-gopher-yaegi-cloud beside the runner (the runner execs it for programs importing the
  // curated packages); empty when there is none.
  std::string yaegi_cloud_runner_binary;
  std::string lockfile_dir;
  std::string bwrap_path;  // empty with the kubernetes provider when none is installed
  std::string go_root;
  std::string go_version;
};

// Throws std::runtime_error saying what is missing, where it looked, and which config key sets it.
InstallLayout resolve_install_layout(const config::DaemonConfig& config);

// [plugins] dirs, else the installed plugin directory, else (a build tree) every folder under
// build/plugins/. Never throws; a missing directory is left for the loader to skip.
std::vector<std::string> resolve_plugin_dirs(const config::DaemonConfig& config);

}  // namespace kg
