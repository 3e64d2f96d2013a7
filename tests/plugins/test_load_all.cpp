// load_all(): every discovered plugin is loaded or logged, and the daemon keeps going.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "load_all_plugins.hpp"
#include "plugin_abi.hpp"
#include "plugin_test_fixtures.hpp"

using kg::plugin::LogLevel;
using kg::plugin_host::load_all;
using kg::plugin_host::PluginLoader;
using kg::plugin_host::PluginRegistry;
using kg::test::RecordingLogger;
using kg::plugin_test::mock_dir;
using kg::plugin_test::mock_path;
using kg::plugin_test::ScratchDir;
using kg::plugin_test::TestHost;

namespace {

std::string at(const std::string& name) {
  return "Plugin '" + name + "' at '" + mock_path(name) + "'";
}

std::string not_loaded(const std::string& name, const std::string& message) {
  return "Plugin '" + name + "' not loaded: " + message;
}

}  // namespace

TEST_CASE("load_all loads the good plugins, disables the unavailable one, logs the rest") {
  TestHost host;  // the plugins' own log lines go here
  RecordingLogger log;
  PluginRegistry registry;
  const std::size_t ready = load_all(PluginLoader({mock_dir()}), registry, host, log);
  CHECK(ready == 3);

  const std::string abi = std::to_string(kg::plugin::kAbiVersion);
  const std::vector<RecordingLogger::Entry> expected{
      {LogLevel::warn,
       not_loaded("availability-throws",
                  at("availability-throws") +
                      " failed its availability check: go version probe crashed")},
      {LogLevel::warn,
       not_loaded("create-returns-null",
                  at("create-returns-null") +
                      " failed to start: its create function returned no object")},
      {LogLevel::info,
       "Plugin 'good-credentials' 2.0.0 loaded from " + mock_path("good-credentials")},
      {LogLevel::info, "Plugin 'good-runtime' 1.2.3 loaded from " + mock_path("good-runtime")},
      {LogLevel::warn,
       not_loaded("misnamed",
                  "Plugin file '" + mock_path("misnamed") + "' declares the name 'other-name'")},
      {LogLevel::warn,
       not_loaded("missing-create", at("missing-create") +
                                        " declares kind runtime but has no create function for it")},
      {LogLevel::warn,
       not_loaded("no-runtime-name",
                  at("no-runtime-name") + " is a runtime plugin but declares no runtime name")},
      {LogLevel::warn,
       not_loaded("no-symbol", at("no-symbol") + " does not export kode_gopher_plugin_descriptor")},
      {LogLevel::warn,
       not_loaded("null-descriptor", at("null-descriptor") + " returned no descriptor")},
      {LogLevel::info, "Plugin 'open-runtime' 0.0.1 loaded from " + mock_path("open-runtime")},
      {LogLevel::warn,
       not_loaded("throws-in-create",
                  at("throws-in-create") +
                      " failed to start: compiled-go setup failed: cannot read config")},
      {LogLevel::warn,
       not_loaded("throws-non-std", at("throws-non-std") + " failed to start: unknown exception")},
      {LogLevel::warn, "Plugin 'unavailable-runtime' disabled: no Go toolchain on PATH"},
      {LogLevel::warn,
       not_loaded("wrong-abi", at("wrong-abi") + " was built for plugin ABI 20200101, this daemon "
                                                 "speaks " +
                                                 abi)},
      {LogLevel::warn, not_loaded("wrong-kind", at("wrong-kind") + " has unknown kind 7")},
  };
  const std::vector<RecordingLogger::Entry> lines = log.entries();
  REQUIRE(lines.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(static_cast<int>(lines[i].first) == static_cast<int>(expected[i].first));
    CHECK(lines[i].second == expected[i].second);
  }
  CHECK(host.captured().entries() ==
        std::vector<RecordingLogger::Entry>{{LogLevel::debug, "good-runtime: created"}});

  // The unavailable plugin is registered (so it is listed) but not handed out.
  const auto listed = registry.list();
  REQUIRE(listed.size() == 4);
  CHECK(listed[0].name == "good-credentials");
  CHECK(listed[1].name == "good-runtime");
  CHECK(listed[2].name == "open-runtime");
  CHECK(listed[3].name == "unavailable-runtime");
  CHECK(listed[3].state == "unavailable");
  CHECK(registry.runtime_names() ==
        std::vector<std::string>{"good-runtime", "echo", "unavailable-runtime"});
  CHECK(registry.runtime("good-runtime") != nullptr);
  CHECK(registry.runtime("unavailable-runtime") == nullptr);
  CHECK(registry.credentials("good-credentials") != nullptr);
}

TEST_CASE("load_all with no plugin directories loads nothing and logs nothing") {
  TestHost host;
  RecordingLogger log;
  PluginRegistry registry;
  ScratchDir empty;
  CHECK(load_all(PluginLoader({empty.str(), "/nonexistent-kg-dir"}), registry, host, log) == 0);
  CHECK(log.entries().empty());
  CHECK(registry.list().empty());
}

TEST_CASE("load_all reports a file whose name is not a plugin name") {
  TestHost host;
  RecordingLogger log;
  PluginRegistry registry;
  ScratchDir dir;
  std::filesystem::copy_file(mock_path("good-runtime"), dir / "Good_Runtime.so");
  CHECK(load_all(PluginLoader({dir.str()}), registry, host, log) == 0);
  CHECK(log.entries() ==
        std::vector<RecordingLogger::Entry>{
            {LogLevel::warn,
             "Plugin 'Good_Runtime' not loaded: Invalid plugin name 'Good_Runtime': use "
             "lowercase letters, digits and '-'"}});
}
