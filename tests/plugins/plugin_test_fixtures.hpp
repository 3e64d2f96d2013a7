// What the plugin-loader tests share: where the mock plugins are, a scratch directory, and
// host-side stand-ins (a Logger that records, HostServices, a SandboxHandle, a ProgressSink).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host_services.hpp"
#include "runtime_plugin.hpp"
#include "sandbox_handle.hpp"
#include "../support/test_loggers.hpp"

namespace kg::plugin_test {

// The build directory of tests/plugins/mock, passed by Meson as KG_MOCK_PLUGIN_DIR.
inline std::string mock_dir() {
  const char* dir = std::getenv("KG_MOCK_PLUGIN_DIR");
  REQUIRE_MESSAGE(dir != nullptr, "run through `meson test`: KG_MOCK_PLUGIN_DIR is not set");
  return dir;
}

inline std::string mock_path(const std::string& name) { return mock_dir() + "/" + name + ".so"; }

// A fresh directory under the system temp dir, removed with everything in it. path() is
// canonical, so it matches the real paths the loader computes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kg-plugin-test-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(pattern);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  std::filesystem::path operator/(const std::string& child) const { return path_ / child; }

 private:
  std::filesystem::path path_;
};

class TestHost final : public plugin::HostServices {
 public:
  plugin::Logger& logger() noexcept override { return logger_; }
  std::optional<std::string> config_value(std::string_view) const override { return {}; }
  const plugin::ToolchainInfo& toolchain() const noexcept override { return toolchain_; }
  // The mock plugins use neither; the real ones get the daemon's (daemon/gocache).
  plugin::BinaryCacheService* binary_cache() noexcept override { return nullptr; }
  plugin::ModuleTidyService* module_tidy() noexcept override { return nullptr; }
  kg::test::RecordingLogger& captured() { return logger_; }

 private:
  kg::test::RecordingLogger logger_;
  plugin::ToolchainInfo toolchain_{"go1.26.8", "/usr/local/go", "0123abcd", "module m\n", "", "", "", ""};
};

// The mock runtimes never touch their sandbox; any use of it is a test failure.
class UnusedSandbox final : public plugin::SandboxHandle {
 public:
  void replace_workdir(std::span<const plugin::SourceFile>) override { fail(); }
  void upload_files(std::span<const plugin::SourceFile>) override { fail(); }
  plugin::CommandOutcome run_command(const plugin::CommandSpec&) override { fail(); }
  std::optional<std::string> read_file(std::string_view, std::uint64_t) override { fail(); }

 private:
  [[noreturn]] static void fail() { throw std::logic_error("mock runtime used the sandbox"); }
};

class RecordingProgress final : public plugin::ProgressSink {
 public:
  void phase_started(plugin::Phase phase, std::string_view detail) noexcept override {
    events.emplace_back(phase, std::string(detail));
  }
  std::vector<std::pair<plugin::Phase, std::string>> events;
};

}  // namespace kg::plugin_test

// Readable failures for comparisons of captured log lines: "[debug good-runtime: created]".
template <>
struct doctest::StringMaker<std::vector<kg::test::RecordingLogger::Entry>> {
  static String convert(const std::vector<kg::test::RecordingLogger::Entry>& lines) {
    static constexpr const char* kNames[] = {"error", "warn", "info", "debug"};
    std::string out;
    for (const auto& [level, message] : lines) {
      out += std::string("[") + kNames[static_cast<int>(level)] + " " + message + "]";
    }
    return out.c_str();
  }
};
