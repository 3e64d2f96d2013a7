// Services the daemon lends to every plugin. Passed in at creation, never linked: a plugin
// calls back into the daemon only through these interfaces.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "go_host_services.hpp"
#include "logger.hpp"

namespace kg::plugin {

// The shared logging interface (lib/log/logger.hpp), under the names plugins have always used.
using LogLevel = log::LogLevel;
using Logger = log::Logger;

// Facts about the Go toolchain the sandboxes use, found by the daemon at start.
struct ToolchainInfo {
  std::string go_version;  // "go1.26.8"
  std::string go_root;     // the GOROOT path as seen inside a sandbox
  std::string lockfile_digest;  // sha256 of the curated lockfile (go.mod, go.sum, curated.go)
  // The lockfile's go.mod and go.sum: a program without its own go.mod is built with these,
  // uploaded with its files (module kode_gopher_user).
  std::string lockfile_go_mod;
  std::string lockfile_go_sum;
  // Where the Yaegi runner (kode-gopher-yaegi, built from the lockfile's modules) is mounted in
  // every sandbox; empty when this install has none.
  std::string yaegi_runner;
  // compiled-go's fast build path inside every sandbox: kode-gopher-fastbuild, and the data the
  // prewarm computed for this toolchain and lockfile (sandbox/fastbuild/README.md). A sandbox
  // without them (an older Kubernetes image) makes the plugin build with go build.
  std::string fastbuild;
  std::string fastbuild_data;
};

class HostServices {
 public:
  virtual ~HostServices() = default;
  virtual Logger& logger() noexcept = 0;
  // Value of a key in the plugin's own config section ([<plugin-name>] in the INI file),
  // asked for as "<plugin-name>.<key>"; nullopt when not set.
  virtual std::optional<std::string> config_value(std::string_view key) const = 0;
  virtual const ToolchainInfo& toolchain() const noexcept = 0;
  // The Go side's services (go_host_services.hpp). Null when this daemon does not offer it: the
  // binary cache and tidy need a sandbox that can receive host folders, which the kubernetes
  // provider's pods cannot (docs/architecture.md, "The Go side").
  virtual BinaryCacheService* binary_cache() noexcept = 0;
  virtual ModuleTidyService* module_tidy() noexcept = 0;
};

}  // namespace kg::plugin
