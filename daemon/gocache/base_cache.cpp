#include "base_cache.hpp"

#include <Poco/DigestEngine.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/SHA2Engine.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error_chain.hpp"
#include "sandbox_paths.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kStampName = "kode-gopher-stamp";
// The prewarm's steps are sandbox/prewarm.sh's, the same script the Kubernetes sandbox image runs
// (it sits beside the lockfile): `download` on the host, `compile` in a sandbox.
constexpr const char* kPrewarmScript = "prewarm.sh";
constexpr const char* kPrewarmCompileCommand =
    "exec sh /opt/kode-gopher/lockfile/prewarm.sh compile /opt/kode-gopher/lockfile";
constexpr const char* kLockfileFiles[] = {"go.mod", "go.sum", "curated.go"};
// How often a waiting caller hears that the build is still running.
constexpr auto kHeartbeat = std::chrono::seconds(15);

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string sha256_of(const std::string& text) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(text);
  return Poco::DigestEngine::digestToHex(sha.digest());
}

std::uint64_t seconds_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count());
}

}  // namespace

std::string lockfile_text(const std::string& lockfile_dir, const std::string& name) {
  return read_file(fs::path(lockfile_dir) / name);
}

std::string lockfile_digest_of(const std::string& lockfile_dir) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  for (const char* name : kLockfileFiles) {
    sha.update(std::string(name) + '\0' + read_file(fs::path(lockfile_dir) / name) + '\0');
  }
  return Poco::DigestEngine::digestToHex(sha.digest());
}

BaseCache::BaseCache(BaseCachePaths paths, OpenPrewarmSandbox open_prewarm_sandbox,
                     std::string go_version, plugin::Logger& logger)
    : paths_(std::move(paths)),
      open_prewarm_sandbox_(std::move(open_prewarm_sandbox)),
      go_version_(std::move(go_version)),
      lockfile_digest_(lockfile_digest_of(paths_.lockfile_dir)),
      prewarm_script_digest_(sha256_of(read_file(fs::path(paths_.lockfile_dir) / kPrewarmScript))),
      logger_(logger) {
  if (stamps_match()) state_ = State::current;
}

BaseCache::~BaseCache() { stop(); }

std::string BaseCache::expected_stamp() const {
  // The script's own text is part of the recipe: a changed step rebuilds the cache.
  // The fast build path's data is computed by the prewarm: its format's version is part of the
  // recipe too (sandbox/fastbuild/data.go's dataFormat; its test checks this line).
  return "kode-gopher base cache v4\n" + go_version_ + "\nlockfile " + lockfile_digest_ +
         "\nCGO_ENABLED=0 prewarm.sh sha256 " + prewarm_script_digest_ + "\nfastbuild data v1\n";
}

bool BaseCache::modules_current() const {
  return read_file(fs::path(paths_.base_modcache_dir) / kStampName) ==
         "lockfile " + lockfile_digest_ + "\n";
}

bool BaseCache::stamps_match() const {
  return modules_current() &&
         read_file(fs::path(paths_.base_cache_dir) / kStampName) == expected_stamp();
}

bool BaseCache::current() const {
  std::lock_guard lock(mutex_);
  return state_ == State::current;
}

BaseCache::Status BaseCache::status() const {
  std::lock_guard lock(mutex_);
  Status status;
  status.state = state_;
  if (state_ == State::failed) status.step = failure_;
  if (state_ == State::building) {
    status.step = step_;
    status.elapsed_s = seconds_since(build_started_);
  }
  return status;
}

void BaseCache::on_current(std::function<void()> callback) {
  std::lock_guard lock(mutex_);
  on_current_ = std::move(callback);
}

void BaseCache::ensure(const std::function<void(std::string_view)>& progress,
                       const std::function<bool()>& give_up) {
  std::unique_lock lock(mutex_);
  if (state_ == State::current) return;
  if (stopping_) throw BaseCacheStoppedError("The daemon is stopping; it builds no Go build cache");
  if (state_ != State::building) {
    if (builder_.joinable()) builder_.join();  // a failed build's thread, finished
    state_ = State::building;
    step_ = "starting";
    ++builds_started_;
    build_started_ = Clock::now();
    builder_ = std::thread([this] { build(); });
  } else {
    progress("Waiting for the Go build cache that another call started building (" +
             std::to_string(seconds_since(build_started_)) + " s so far)");
  }
  const std::uint64_t build = builds_started_;
  std::string told = step_;
  if (told != "starting") progress(told);
  auto next_heartbeat = Clock::now() + kHeartbeat;
  for (;;) {
    changed_.wait_for(lock, std::chrono::seconds(1));
    if (state_ == State::current) return;
    if (stopping_) throw BaseCacheStoppedError("The daemon is stopping; the Go build cache was not finished");
    if (state_ == State::failed || builds_started_ != build) {
      throw plugin::SandboxError("Failed to prewarm the Go build cache: " + failure_ +
                                 " (the next call tries again; `kode-gopherd --prewarm` runs the "
                                 "build in the foreground with its output)");
    }
    if (step_ != told) {
      told = step_;
      progress(told);
      next_heartbeat = Clock::now() + kHeartbeat;
    } else if (Clock::now() >= next_heartbeat) {
      progress("Still prewarming the Go build cache (" + std::to_string(seconds_since(build_started_)) +
               " s so far): " + told);
      next_heartbeat = Clock::now() + kHeartbeat;
    }
    if (give_up) {
      lock.unlock();
      const bool gone = give_up();
      lock.lock();
      if (gone) {
        throw plugin::SandboxError("Stopped waiting for the Go build cache (the build goes on "
                                   "for later calls)");
      }
    }
  }
}

void BaseCache::stop() noexcept {
  std::thread builder;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (running_pid_ > 0) ::kill(running_pid_, SIGKILL);
    if (running_sandbox_ != nullptr) running_sandbox_->interrupt();
    builder.swap(builder_);
  }
  changed_.notify_all();
  if (builder.joinable()) builder.join();
}

void BaseCache::set_step(std::string step) {
  logger_.log(plugin::LogLevel::info, step);
  {
    std::lock_guard lock(mutex_);
    step_ = std::move(step);
  }
  changed_.notify_all();
}

void BaseCache::remember_process(pid_t pid) {
  std::lock_guard lock(mutex_);
  running_pid_ = pid;
  // Started just as stop() looked: it must not outlive the daemon either.
  if (stopping_ && pid > 0) ::kill(pid, SIGKILL);
}

void BaseCache::remember_sandbox(Sandbox* sandbox) {
  std::lock_guard lock(mutex_);
  running_sandbox_ = sandbox;
  if (stopping_ && sandbox != nullptr) sandbox->interrupt();
}

void BaseCache::throw_if_stopping() {
  std::lock_guard lock(mutex_);
  if (stopping_) throw BaseCacheStoppedError("the daemon is stopping");
}

void BaseCache::build() noexcept {
  const auto started = Clock::now();
  std::string failure;
  try {
    build_steps();
  } catch (const std::exception& e) {
    failure = describe_error_chain(e);
  }
  std::function<void()> notify;
  {
    std::lock_guard lock(mutex_);
    running_pid_ = 0;
    if (failure.empty()) {
      state_ = State::current;
      notify = on_current_;
    } else {
      state_ = State::failed;
      failure_ = failure;
    }
  }
  changed_.notify_all();
  if (!failure.empty()) {
    logger_.log(plugin::LogLevel::error, "Failed to prewarm the Go build cache: " + failure);
    return;
  }
  logger_.log(plugin::LogLevel::info, "Go build cache ready in " + paths_.base_cache_dir +
                                          " (" + std::to_string(seconds_since(started)) + " s)");
  if (notify) notify();
}

void BaseCache::build_steps() {
  const auto& layout = paths_;
  fs::remove(fs::path(layout.base_cache_dir) / kStampName);
  if (!modules_current()) {
    set_step("Downloading the curated lockfile's modules into " + layout.base_modcache_dir);
    download_modules();
    std::ofstream(fs::path(layout.base_modcache_dir) / kStampName) << "lockfile " + lockfile_digest_ + "\n";
  }
  throw_if_stopping();
  set_step("Compiling the standard library and the curated packages into " + layout.base_cache_dir +
           " (" + go_version_ + "; a few minutes on 2 cores, once per toolchain and lockfile)");
  compile_into_base_cache();
  std::ofstream(fs::path(layout.base_cache_dir) / kStampName) << expected_stamp();
}

// Downloads every module the lockfile's packages need into the base module cache, on the host
// (prewarm.sh download): the lockfile is ours, and sandboxes have no network. `go list -deps`
// fetches exactly what a build of the curated packages reads, without compiling anything.
void BaseCache::download_modules() {
  const auto& layout = paths_;
  const fs::path work = fs::path(layout.work_dir) / "lockfile-download";
  fs::remove_all(work);
  Poco::Process::Env env;
  env["GO"] = layout.go_root + "/bin/go";
  Poco::Pipe output;
  auto process = Poco::Process::launch(
      "/bin/sh",
      {(fs::path(layout.lockfile_dir) / kPrewarmScript).string(), "download", layout.lockfile_dir,
       layout.base_modcache_dir, work.string()},
      layout.lockfile_dir, nullptr, &output, &output, env);
  remember_process(process.id());
  Poco::PipeInputStream in(output);
  std::stringstream text;
  text << in.rdbuf();
  const int rc = process.wait();
  remember_process(0);
  fs::remove_all(work);
  throw_if_stopping();
  if (rc != 0) {
    std::string tail = text.str();
    if (tail.size() > 4000) tail = "..." + tail.substr(tail.size() - 4000);
    throw plugin::SandboxError("`go list -deps` of the lockfile failed (exit " + std::to_string(rc) +
                               "; is the Go module proxy reachable?): " + tail);
  }
}

void BaseCache::compile_into_base_cache() {
  auto sandbox = open_prewarm_sandbox_();
  remember_sandbox(sandbox.get());
  plugin::CommandSpec spec;
  spec.command = kPrewarmCompileCommand;
  spec.timeout_ms = 60 * 60 * 1000;
  plugin::CommandOutcome outcome;
  try {
    outcome = sandbox->call_handle({})->run_command(spec);
  } catch (...) {
    remember_sandbox(nullptr);
    throw_if_stopping();
    throw;
  }
  remember_sandbox(nullptr);
  sandbox.reset();
  throw_if_stopping();
  if (outcome.exit_code != 0) {
    throw plugin::SandboxError("the prewarm build exited with " + std::to_string(outcome.exit_code) +
                               ": " + outcome.stderr_text);
  }
}

}  // namespace kg::sandbox
