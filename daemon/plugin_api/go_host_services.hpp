// Host services only Go runtimes use: the binary cache and `go mod tidy`. The daemon's Go side
// (daemon/gocache) implements them; a runtime plugin reaches them through HostServices and hands
// them the SandboxHandle of its call, so the host knows whose sandbox it serves (each owner's
// cached programs and tidied modules reach that owner's sandboxes only, docs/security.md). They
// are not methods of SandboxHandle: what a sandbox offers is the same for every runtime, and a
// provider whose sandboxes cannot receive host folders (Kubernetes) simply has no such service
// (HostServices returns null), instead of stubbing it in each sandbox's handle.
//
// Called from the thread running the call, with the handle the daemon passed to execute().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox_handle.hpp"

namespace kg::plugin {

// Built programs kept by the host per owner (the session's user), across that owner's sandboxes
// and sessions, never shown to another owner's sandbox.
class BinaryCacheService {
 public:
  virtual ~BinaryCacheService() = default;
  // The path, inside the handle's sandbox, of the executable cached under `key` (64 lowercase
  // hex digits) for the sandbox's owner, or nullopt on a miss. A failure to serve the hit is
  // logged by the host and is a miss; never throws.
  virtual std::optional<std::string> cached_binary(SandboxHandle& sandbox,
                                                   std::string_view key) noexcept = 0;
  // Whether cached_binary would hit, without serving anything into the sandbox (auto asks it
  // before choosing a runtime). Never throws: a failure is false.
  virtual bool holds_binary(SandboxHandle& sandbox, std::string_view key) noexcept = 0;
  // Keeps the executable at `sandbox_path` (under the sandbox's home) under `key`, only when the
  // handle's last command succeeded with clean_state. A failure to store (or a refusal) is
  // logged by the host, never thrown.
  virtual void store_binary(SandboxHandle& sandbox, std::string_view key,
                            std::string_view sandbox_path) noexcept = 0;
};

// What `go mod tidy` made of a program that imports packages outside the curated lockfile.
struct TidyOutcome {
  bool ok = false;
  std::string go_mod;  // the tidied go.mod and go.sum, when ok
  std::string go_sum;
  std::string output;  // what go mod tidy printed (the reason, when not ok)
  std::vector<std::string> moved;  // "go mod tidy moved <module> from <v1> to <v2>", per module
};

class ModuleTidyService {
 public:
  virtual ~ModuleTidyService() = default;
  // Runs `go mod tidy` on the host for these files against the curated lockfile's go.mod/go.sum,
  // with network access to the Go module proxy only (sandboxes have none). The modules it
  // fetches are then readable by the handle's sandbox's builds through
  // GOPROXY=file://<kSandboxExtraModcachePath>. Throws SandboxError when tidy cannot be run at
  // all; a failing tidy is an outcome.
  virtual TidyOutcome tidy_module(SandboxHandle& sandbox, std::span<const SourceFile> files,
                                  std::uint32_t timeout_ms) = 0;
};

}  // namespace kg::plugin
