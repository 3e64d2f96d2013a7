#include "local_sandbox_provider.hpp"

#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace kg::sandbox {
namespace fs = std::filesystem;
namespace {

std::string new_sandbox_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "sb-%012llx",
                static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  return buffer;
}

// The command line of a live process, or empty.
std::string process_cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

}  // namespace

LocalSandboxProvider::LocalSandboxProvider(LocalSandboxLayout layout, plugin::Logger& logger)
    : layout_(std::move(layout)), logger_(logger) {
  fs::create_directories(layout_.sandboxes_dir);
  fs::create_directories(layout_.base_cache_dir);
  fs::create_directories(layout_.base_modcache_dir);
  fs::create_directories(layout_.binary_cache_dir);
  fs::create_directories(layout_.extra_modcache_dir);
}

std::unique_ptr<LocalSandbox> LocalSandboxProvider::open(BaseCacheAccess access) {
  const std::string id = new_sandbox_id();
  const std::string dir = layout_.sandboxes_dir + "/" + id;
  try {
    for (const char* sub : {"app", "home", "tmp", "run"}) {
      fs::create_directories(dir + "/" + sub);
    }
    ::chmod(dir.c_str(), 0700);
    const auto argv = bwrap_arguments(layout_, dir, access);
    const pid_t pid = spawner_.spawn(argv, dir + "/sandbox.log");
    std::ofstream(dir + "/bwrap.pid") << pid << '\n';
    auto sandbox = std::make_unique<LocalSandbox>(id, dir, pid, logger_);
    sandbox->wait_until_ready(std::chrono::seconds(15));
    logger_.log(plugin::LogLevel::debug, "Sandbox " + id + " ready (bwrap pid " +
                                             std::to_string(pid) + ")");
    return sandbox;
  } catch (...) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::exists(dir + "/bwrap.pid", ec)) remove_tree(dir);
    std::throw_with_nested(plugin::SandboxError("Failed to start sandbox " + id));
  }
}

int LocalSandboxProvider::reap_orphans() {
  int found = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layout_.sandboxes_dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    ++found;
    const std::string dir = entry.path().string();
    std::ifstream pid_file(dir + "/bwrap.pid");
    pid_t pid = 0;
    // Only kill the recorded pid when it is still that sandbox's bubblewrap, not a reused pid.
    if (pid_file >> pid && pid > 1 && process_cmdline(pid).find(dir) != std::string::npos) {
      ::kill(pid, SIGKILL);
    }
    remove_tree(dir);
    logger_.log(plugin::LogLevel::info, "Reaped orphaned sandbox " + entry.path().filename().string());
  }
  return found;
}

}  // namespace kg::sandbox
