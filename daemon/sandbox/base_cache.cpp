#include "base_cache.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStampName = "kode-gopher-stamp";
// What the prewarm compiles; the flags must match what the runtime plugins build with.
constexpr const char* kPrewarmCommand = "go build -trimpath std";

}  // namespace

BaseCache::BaseCache(LocalSandboxProvider& provider, std::string go_version,
                     plugin::Logger& logger)
    : provider_(provider), go_version_(std::move(go_version)), logger_(logger) {}

std::string BaseCache::expected_stamp() const {
  return "kode-gopher base cache v1\n" + go_version_ + "\nCGO_ENABLED=0 " + kPrewarmCommand + "\n";
}

bool BaseCache::current() const {
  std::ifstream in(provider_.layout().base_cache_dir + "/" + kStampName);
  std::stringstream text;
  text << in.rdbuf();
  return in && text.str() == expected_stamp();
}

void BaseCache::ensure(const std::function<void(std::string_view)>& progress) {
  if (current()) return;
  std::lock_guard lock(build_mutex_);
  if (current()) return;  // another thread built it while we waited
  const auto started = std::chrono::steady_clock::now();
  const std::string dir = provider_.layout().base_cache_dir;
  progress("Prewarming the Go build cache in " + dir + " (" + go_version_ +
           ", standard library; about a minute on 2 cores, once per toolchain)");
  try {
    fs::remove(dir + "/" + kStampName);
    auto sandbox = provider_.open(BaseCacheAccess::writable);
    plugin::CommandSpec spec;
    spec.command = kPrewarmCommand;
    spec.timeout_ms = 30 * 60 * 1000;
    const auto outcome = sandbox->client().run_command(spec);
    if (outcome.exit_code != 0) {
      throw plugin::SandboxError("`" + std::string(kPrewarmCommand) + "` exited with " +
                                 std::to_string(outcome.exit_code) + ": " + outcome.stderr_text);
    }
    sandbox->stop();
    std::ofstream(dir + "/" + kStampName) << expected_stamp();
  } catch (...) {
    std::throw_with_nested(plugin::SandboxError("Failed to prewarm the Go build cache"));
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - started).count();
  progress("Go build cache ready (" + std::to_string(seconds) + " s)");
  logger_.log(plugin::LogLevel::info, "Go build cache prewarmed in " + dir);
}

}  // namespace kg::sandbox
