#include "base_cache.hpp"

#include <Poco/DigestEngine.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/SHA2Engine.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "local_sandbox_layout.hpp"

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStampName = "kode-gopher-stamp";
// What the prewarm compiles, with exactly the flags the runtime plugins build with.
constexpr const char* kPrewarmCommand =
    "cp /opt/kode-gopher/lockfile/go.mod /opt/kode-gopher/lockfile/go.sum "
    "/opt/kode-gopher/lockfile/curated.go /app/ && "
    "go build -trimpath -buildvcs=false -ldflags='-s -w' -o /dev/null . && "
    "go build -trimpath std";
constexpr const char* kLockfileFiles[] = {"go.mod", "go.sum", "curated.go"};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string lockfile_text(const std::string& lockfile_dir, const std::string& name) {
  return read_file(fs::path(lockfile_dir) / name);
}

std::string lockfile_digest(const std::string& lockfile_dir) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  for (const char* name : kLockfileFiles) {
    sha.update(std::string(name) + '\0' + read_file(fs::path(lockfile_dir) / name) + '\0');
  }
  return Poco::DigestEngine::digestToHex(sha.digest());
}

namespace {

// Downloads every module the lockfile's packages need into the base module cache, on the host:
// the lockfile is ours, and sandboxes have no network. `go list -deps` fetches exactly what a
// build of the curated packages reads, without compiling anything.
void download_modules(const LocalSandboxLayout& layout) {
  const fs::path work = fs::path(layout.sandboxes_dir) / "lockfile-download";
  fs::remove_all(work);
  fs::create_directories(work);
  for (const char* name : kLockfileFiles) fs::copy_file(fs::path(layout.lockfile_dir) / name, work / name);
  Poco::Process::Env env;
  env["GOMODCACHE"] = layout.base_modcache_dir;
  env["GOFLAGS"] = "-mod=mod -modcacherw";
  env["GOTOOLCHAIN"] = "local";
  env["GOWORK"] = "off";
  env["CGO_ENABLED"] = "0";
  Poco::Pipe output;
  auto process = Poco::Process::launch(layout.go_root + "/bin/go", {"list", "-deps", "."},
                                       work.string(), nullptr, &output, &output, env);
  Poco::PipeInputStream in(output);
  std::stringstream text;
  text << in.rdbuf();
  const int rc = process.wait();
  fs::remove_all(work);
  if (rc != 0) {
    std::string tail = text.str();
    if (tail.size() > 4000) tail = "..." + tail.substr(tail.size() - 4000);
    throw plugin::SandboxError("`go list -deps` of the lockfile failed (exit " + std::to_string(rc) +
                               "; is the Go module proxy reachable?): " + tail);
  }
}

}  // namespace

BaseCache::BaseCache(LocalSandboxProvider& provider, std::string go_version,
                     plugin::Logger& logger)
    : provider_(provider), go_version_(std::move(go_version)), logger_(logger) {}

std::string BaseCache::expected_stamp() const {
  return "kode-gopher base cache v2\n" + go_version_ + "\nlockfile " +
         lockfile_digest() + "\nCGO_ENABLED=0 " + kPrewarmCommand +
         "\n";
}

std::string BaseCache::lockfile_digest() const {
  return sandbox::lockfile_digest(provider_.layout().lockfile_dir);
}

bool BaseCache::current() const {
  return modules_current() &&
         read_file(fs::path(provider_.layout().base_cache_dir) / kStampName) == expected_stamp();
}

bool BaseCache::modules_current() const {
  return read_file(fs::path(provider_.layout().base_modcache_dir) / kStampName) ==
         "lockfile " + lockfile_digest() + "\n";
}

void BaseCache::ensure(const std::function<void(std::string_view)>& progress) {
  // Once seen current, the stamps are not read again: the toolchain and lockfile are fixed for
  // the daemon's life, and every call asks.
  if (known_current_) return;
  if (current()) {
    known_current_ = true;
    return;
  }
  std::lock_guard lock(build_mutex_);
  if (current()) {  // another thread built it while we waited
    known_current_ = true;
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto& layout = provider_.layout();
  try {
    fs::remove(fs::path(layout.base_cache_dir) / kStampName);
    if (!modules_current()) {
      progress("Downloading the curated lockfile's modules into " + layout.base_modcache_dir);
      download_modules(layout);
      std::ofstream(fs::path(layout.base_modcache_dir) / kStampName) << "lockfile " + lockfile_digest() + "\n";
    }
    progress("Compiling the standard library and the curated packages into " +
             layout.base_cache_dir + " (" + go_version_ +
             "; a few minutes on 2 cores, once per toolchain and lockfile)");
    auto sandbox = provider_.open(BaseCacheAccess::writable);
    plugin::CommandSpec spec;
    spec.command = kPrewarmCommand;
    spec.timeout_ms = 60 * 60 * 1000;
    const auto outcome = sandbox->client().run_command(spec);
    if (outcome.exit_code != 0) {
      throw plugin::SandboxError("the prewarm build exited with " + std::to_string(outcome.exit_code) +
                                 ": " + outcome.stderr_text);
    }
    sandbox->stop();
    std::ofstream(fs::path(layout.base_cache_dir) / kStampName) << expected_stamp();
    known_current_ = true;
  } catch (...) {
    std::throw_with_nested(plugin::SandboxError("Failed to prewarm the Go build cache"));
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - started).count();
  progress("Go build cache ready (" + std::to_string(seconds) + " s)");
  logger_.log(plugin::LogLevel::info, "Go build cache prewarmed in " + layout.base_cache_dir);
}

}  // namespace kg::sandbox
