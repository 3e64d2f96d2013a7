// The prewarmed Go build cache every sandbox reads (read-only, under a private writable layer),
// and the module cache with the curated lockfile's modules. The modules are downloaded on the
// host (the lockfile is ours; sandboxes have no network); the build cache is filled by
// compiling the standard library and the curated packages inside a sandbox whose view of the
// base is writable, so the cache keys match what later sandboxes compute exactly. Stamp files
// record what each was made for.
//
// The stamps are read once, when the BaseCache is made: the toolchain and the lockfile are fixed
// for the daemon's life, so current() is a plain read that never blocks. A stale cache is built
// on its own thread, started by the first ensure(); every caller of ensure() (the first one too)
// waits for that one build, hearing its steps and a heartbeat on its progress callback. stop()
// kills a build under way and wakes every waiter, so the daemon stops in seconds whatever the
// cache is doing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host_services.hpp"
#include "sandbox_provider.hpp"

namespace kg::sandbox {

// A file of the curated lockfile (go.mod, go.sum), as every sandbox sees it; "" when missing.
std::string lockfile_text(const std::string& lockfile_dir, const std::string& name);
// sha256 of the curated lockfile (go.mod, go.sum, curated.go): ToolchainInfo::lockfile_digest.
std::string lockfile_digest_of(const std::string& lockfile_dir);

// ensure() gave up because the daemon is stopping.
class BaseCacheStoppedError : public plugin::SandboxError {
 public:
  using plugin::SandboxError::SandboxError;
};

// Where the caches live on the host, and what builds them.
struct BaseCachePaths {
  std::string go_root;            // the toolchain that downloads the modules
  std::string lockfile_dir;       // the curated lockfile (go.mod, go.sum, curated.go)
  std::string base_cache_dir;     // the build cache the prewarm fills
  std::string base_modcache_dir;  // the module cache the download fills
  std::string work_dir;           // scratch space for the download
};

// Opens the sandbox the prewarm compiles in: one that sees the base build cache writable.
using OpenPrewarmSandbox = std::function<std::unique_ptr<Sandbox>()>;

class BaseCache {
 public:
  enum class State { stale, building, current, failed };
  // What /v1/health reports: the state, the step under way (or the last failure) and for how
  // long the build has been running.
  struct Status {
    State state = State::stale;
    std::string step;
    std::uint64_t elapsed_s = 0;
  };

  BaseCache(BaseCachePaths paths, OpenPrewarmSandbox open_prewarm_sandbox, std::string go_version,
            plugin::Logger& logger);
  ~BaseCache();  // stop()s
  BaseCache(const BaseCache&) = delete;
  BaseCache& operator=(const BaseCache&) = delete;

  // True once the caches are known to match this toolchain, lockfile and recipe. Never blocks.
  bool current() const;
  Status status() const;

  // Returns once the cache is current, starting its build if nobody has. progress hears each
  // step of the build and a heartbeat while it runs; give_up is polled about once a second
  // (true: stop waiting; the build goes on for the others). Throws plugin::SandboxError (nested)
  // when the build fails (the next ensure() tries again), BaseCacheStoppedError after stop(),
  // and plugin::SandboxError("... stopped waiting") when give_up said so.
  void ensure(const std::function<void(std::string_view)>& progress,
              const std::function<bool()>& give_up = {});

  // Called (from the build thread) each time the cache becomes current; set before any ensure().
  void on_current(std::function<void()> callback);

  // Kills a build under way (its sandbox or `go list`), wakes every waiter and refuses further
  // builds. Idempotent; never throws.
  void stop() noexcept;

  std::string expected_stamp() const;
  // sha256 (hex) of the lockfile's go.mod, go.sum and curated.go.
  const std::string& lockfile_digest() const noexcept { return lockfile_digest_; }

 private:
  bool stamps_match() const;
  bool modules_current() const;
  void build() noexcept;  // the build thread
  void build_steps();
  void download_modules();
  void compile_into_base_cache();
  void set_step(std::string step);
  void remember_process(pid_t pid);  // what stop() kills; 0 when nothing runs
  void remember_sandbox(Sandbox* sandbox);  // what stop() interrupts; null when none runs
  void throw_if_stopping();

  BaseCachePaths paths_;
  OpenPrewarmSandbox open_prewarm_sandbox_;
  std::string go_version_;
  std::string lockfile_digest_;
  std::string prewarm_script_digest_;  // sha256 of prewarm.sh, part of the stamp
  plugin::Logger& logger_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::stale;
  std::string step_;
  std::string failure_;
  std::uint64_t builds_started_ = 0;  // lets a waiter tell its build's failure from a newer one's
  std::chrono::steady_clock::time_point build_started_;
  pid_t running_pid_ = 0;
  Sandbox* running_sandbox_ = nullptr;
  bool stopping_ = false;
  std::function<void()> on_current_;
  std::thread builder_;
};

}  // namespace kg::sandbox
