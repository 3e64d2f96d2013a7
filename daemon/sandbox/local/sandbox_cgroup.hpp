// Memory and process-count limits of local sandboxes, with cgroup v2 or v1 — whichever this
// machine lets the daemon write — and the OOM-kill counter that tells an OOM kill from any other
// SIGKILL.
//
// Each daemon keeps its sandboxes under one folder of its own (`kode-gopher-<pid>`) beside or
// below its own cgroup, so the machine's limits on the daemon still bound them all. Without a
// writable hierarchy (an unprivileged daemon without a delegated cgroup v2 subtree) the limits
// are unavailable: the daemon says so once at start and in /v1/health, and runs without them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host_services.hpp"

namespace kg::sandbox {

enum class CgroupVersion { none, v1, v2 };

// One sandbox's cgroup(s), split in two: `server` holds bubblewrap and the sandbox server,
// `commands` every command the server runs. The sandbox's own folder bounds both; each command's
// limits bound only `commands`, so an out-of-memory command is killed inside it and the server,
// outside it, always survives to report `oom` (a command cannot move itself out: it sees no
// cgroup file system, and the server's descriptors are out of its reach).
class SandboxCgroup {
 public:
  // Memory and tasks the server itself may use beyond the commands' limits.
  static constexpr std::uint64_t kServerMemoryBytes = 64ull << 20;
  static constexpr std::uint32_t kServerTasks = 64;
  // The sandbox server's command launcher, a process in `commands` between commands.
  static constexpr std::uint32_t kLauncherTasks = 1;

  // dirs: the sandbox's folder in each hierarchy (made already); makes `server` and `commands`
  // in each. Throws std::runtime_error naming the folder when it cannot.
  SandboxCgroup(CgroupVersion version, std::vector<std::string> dirs, plugin::Logger& logger);
  ~SandboxCgroup();  // kills what is left inside and removes the folders
  SandboxCgroup(const SandboxCgroup&) = delete;
  SandboxCgroup& operator=(const SandboxCgroup&) = delete;

  // What bubblewrap joins (by writing "0" to each before exec): the `server` folders.
  std::vector<std::string> procs_files() const;
  // What every command joins: the `commands` folders (the server gets them as descriptors).
  std::vector<std::string> command_procs_files() const;
  // Bounds the whole sandbox: the commands' largest limits plus the server's share.
  void set_sandbox_limits(std::uint64_t memory_bytes, std::uint32_t pids);
  // Sets one command's memory limit (swap included, so it cannot spill over) and task limit on
  // `commands` (plus kLauncherTasks). Throws std::runtime_error naming the file and the reason when the kernel
  // refuses. Limits equal to the ones last set are not written again (a call sets them before
  // every command).
  void set_limits(std::uint64_t memory_bytes, std::uint32_t pids);
  // How many processes the OOM killer has ended among the commands so far.
  std::uint64_t oom_kills() const;
  // How many since the last call (since creation, the first time): one read of the counter per
  // command, after it ends.
  std::uint64_t new_oom_kills();
  // Kills every process still inside (SIGKILL). Never throws.
  void kill_all() noexcept;

 private:
  void write_limits(const std::vector<std::string>& dirs, std::uint64_t memory_bytes,
                    std::uint32_t pids);
  std::vector<std::string> subdirs(const char* name) const;

  CgroupVersion version_;
  std::vector<std::string> dirs_;  // v2: one; v1: memory's, then pids' (when mounted)
  plugin::Logger& logger_;
  std::optional<std::pair<std::uint64_t, std::uint32_t>> applied_;  // memory, pids last set
  std::uint64_t oom_kills_seen_ = 0;
};

class CgroupHierarchy {
 public:
  // Finds a writable hierarchy for this daemon's sandboxes and makes its folder; never throws
  // (an unusable machine gives version() == none and a reason()).
  static std::unique_ptr<CgroupHierarchy> detect(plugin::Logger& logger);
  ~CgroupHierarchy();  // removes this daemon's folder (sandboxes must be gone)

  CgroupVersion version() const noexcept { return version_; }
  bool available() const noexcept { return version_ != CgroupVersion::none; }
  // Why limits are unavailable, or a description of what is used ("cgroup v1 memory+pids at …").
  const std::string& description() const noexcept { return description_; }
  // The cgroup of one new sandbox; nullptr when unavailable. Throws when it cannot be made.
  std::unique_ptr<SandboxCgroup> create(const std::string& sandbox_id);

 private:
  CgroupHierarchy(CgroupVersion version, std::vector<std::string> roots, std::string description,
                  plugin::Logger& logger);

  CgroupVersion version_;
  std::vector<std::string> roots_;  // this daemon's folder(s), one per hierarchy
  std::string description_;
  plugin::Logger& logger_;
};

}  // namespace kg::sandbox
