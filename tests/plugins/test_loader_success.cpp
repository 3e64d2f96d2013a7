// Plugins the loader accepts: what it records about them, that they work through their
// interfaces, and which file a name resolves to.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "loaded_plugin.hpp"
#include "plugin_loader.hpp"
#include "plugin_test_fixtures.hpp"

namespace fs = std::filesystem;
using kg::plugin::LogLevel;
using kg::plugin::PluginKind;
using kg::plugin_host::LoadedPlugin;
using kg::plugin_host::PluginLoader;
using kg::plugin_host::PluginState;
using kg::test::RecordingLogger;
using kg::plugin_test::mock_dir;
using kg::plugin_test::mock_path;
using kg::plugin_test::RecordingProgress;
using kg::plugin_test::ScratchDir;
using kg::plugin_test::TestHost;
using kg::plugin_test::UnusedSandbox;

TEST_CASE("a good runtime plugin is loaded, created with the host, and runs") {
  TestHost host;
  const LoadedPlugin plugin = PluginLoader({mock_dir()}).load("good-runtime", host);
  CHECK(plugin.name == "good-runtime");
  CHECK(plugin.path == mock_path("good-runtime"));
  CHECK(plugin.version == "1.2.3");
  CHECK(plugin.description == "Mock runtime that always prints mock");
  CHECK(plugin.kind == PluginKind::runtime);
  CHECK(plugin.state == PluginState::ready);
  CHECK(plugin.reason == "");
  CHECK(plugin.handle != nullptr);
  CHECK(plugin.credentials == nullptr);
  REQUIRE(plugin.runtime != nullptr);
  CHECK(host.captured().entries() ==
        std::vector<RecordingLogger::Entry>{{LogLevel::debug, "good-runtime: created"}});

  UnusedSandbox sandbox;
  RecordingProgress progress;
  const kg::plugin::ExecuteResult result = plugin.runtime->execute({}, sandbox, progress);
  CHECK(result.stdout_text == "mock\n");
  CHECK(result.stderr_text == "");
  CHECK(result.status == kg::plugin::Status::ok);
  CHECK(result.phase == kg::plugin::Phase::run);
  CHECK(result.exit_code == 0);
  CHECK(result.run_us == 7000);
  REQUIRE(progress.events.size() == 1);
  CHECK(progress.events[0].first == kg::plugin::Phase::run);
  CHECK(progress.events[0].second == "mock run");
}

TEST_CASE("an unavailable runtime plugin is loaded and marked unavailable with its reason") {
  TestHost host;
  const LoadedPlugin plugin = PluginLoader({mock_dir()}).load("unavailable-runtime", host);
  CHECK(plugin.name == "unavailable-runtime");
  CHECK(plugin.version == "0.9.0");
  CHECK(plugin.state == PluginState::unavailable);
  CHECK(plugin.reason == "no Go toolchain on PATH");
  CHECK(plugin.runtime != nullptr);
}

TEST_CASE("a good credentials plugin is loaded and answers through its interface") {
  TestHost host;
  const LoadedPlugin plugin = PluginLoader({mock_dir()}).load("good-credentials", host);
  CHECK(plugin.kind == PluginKind::credentials);
  CHECK(plugin.state == PluginState::ready);
  CHECK(plugin.version == "2.0.0");
  CHECK(plugin.description == "Mock credentials with a fixed token");
  CHECK(plugin.runtime == nullptr);
  REQUIRE(plugin.credentials != nullptr);
  const kg::plugin::Identity identity = plugin.credentials->identity();
  CHECK(identity.mode == kg::plugin::CredentialMode::access_token);
  CHECK(identity.credential_type == "authorized_user");
  CHECK(identity.email == "mock@example.com");
  CHECK(identity.project_id == "mock-project");
  const auto run = plugin.credentials->credentials_for_run(kg::plugin::RunContext{"s-1", 7});
  REQUIRE(run.has_value());
  CHECK(run->token.access_token == "mock-token-s-1");
  CHECK(run->token.expiry_rfc3339 == "2026-12-02T10:00:00Z");
}

TEST_CASE("the first directory that has the plugin wins") {
  ScratchDir first;
  ScratchDir second;
  fs::copy_file(mock_path("good-runtime"), first / "good-runtime.so");
  fs::copy_file(mock_path("good-runtime"), second / "good-runtime.so");
  TestHost host;
  CHECK(PluginLoader({first.str(), second.str()}).load("good-runtime", host).path ==
        first.str() + "/good-runtime.so");
  CHECK(PluginLoader({second.str(), first.str()}).load("good-runtime", host).path ==
        second.str() + "/good-runtime.so");
  // A directory without it is skipped, a missing one too.
  CHECK(PluginLoader({"/nonexistent-kg-dir", mock_dir(), first.str()})
            .load("good-runtime", host)
            .path == mock_path("good-runtime"));
}

TEST_CASE("symlinks that stay inside the plugin directory are followed") {
  ScratchDir scratch;
  fs::create_directories(scratch / "real/versions");
  fs::copy_file(mock_path("good-runtime"), scratch / "real/versions/good-runtime.so.1");
  fs::create_symlink("versions/good-runtime.so.1", scratch / "real/good-runtime.so");
  fs::create_directory_symlink(scratch / "real", scratch / "link");
  TestHost host;
  const std::string via_link = (scratch / "link").string();
  const LoadedPlugin plugin = PluginLoader({via_link}).load("good-runtime", host);
  CHECK(plugin.path == via_link + "/good-runtime.so");
  CHECK(plugin.state == PluginState::ready);
}

TEST_CASE("a directory given with a trailing slash gives the same path") {
  TestHost host;
  CHECK(PluginLoader({mock_dir() + "/"}).load("good-runtime", host).path ==
        mock_path("good-runtime"));
}

TEST_CASE("discover lists the *.so names of all directories, sorted and unique") {
  ScratchDir first;
  ScratchDir second;
  for (const std::string file : {"b.so", "a.so", "Bad_Name.so", "notes.txt", "c.so.1", ".so"}) {
    std::ofstream(first / file) << "x";
  }
  fs::create_directory(first / "subdir.so");
  fs::create_symlink(first / "nowhere", first / "dangling.so");
  std::ofstream(second / "a.so") << "x";
  std::ofstream(second / "z.so") << "x";
  const PluginLoader loader({first.str(), "/nonexistent-kg-dir", second.str()});
  CHECK(loader.discover() == std::vector<std::string>{"Bad_Name", "a", "b", "z"});
  CHECK(PluginLoader({}).discover().empty());
}

TEST_CASE("discover finds exactly the mock plugins in the mock directory") {
  CHECK(PluginLoader({mock_dir()}).discover() ==
        std::vector<std::string>{"availability-throws", "create-returns-null", "good-credentials",
                                 "good-runtime", "misnamed", "missing-create", "no-runtime-name",
                                 "no-symbol", "null-descriptor", "open-runtime",
                                 "throws-in-create", "throws-non-std",
                                 "unavailable-runtime", "wrong-abi", "wrong-kind"});
}
