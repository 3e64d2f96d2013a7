// PluginRegistry: lookups by name and kind, the listing, and duplicate names.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "plugin_load_error.hpp"
#include "plugin_loader.hpp"
#include "plugin_registry.hpp"
#include "plugin_test_fixtures.hpp"

using kg::plugin_host::LoadedPlugin;
using kg::plugin_host::PluginListEntry;
using kg::plugin_host::PluginLoader;
using kg::plugin_host::PluginLoadError;
using kg::plugin_host::PluginRegistry;
using kg::plugin_test::mock_dir;
using kg::plugin_test::mock_path;
using kg::plugin_test::RecordingProgress;
using kg::plugin_test::TestHost;
using kg::plugin_test::UnusedSandbox;

namespace doctest {
template <>
struct StringMaker<PluginListEntry> {
  static String convert(const PluginListEntry& e) {
    return (e.name + "|" + e.kind + "|" + e.version + "|" + e.description + "|" + e.path + "|" +
            e.state + "|" + e.reason)
        .c_str();
  }
};
}  // namespace doctest

TEST_CASE("the registry hands out ready plugins by name and kind") {
  TestHost host;
  const PluginLoader loader({mock_dir()});
  PluginRegistry registry;
  LoadedPlugin good = loader.load("good-runtime", host);
  kg::plugin::RuntimePlugin* const good_runtime = good.runtime.get();
  registry.add(std::move(good));
  LoadedPlugin credentials = loader.load("good-credentials", host);
  kg::plugin::CredentialsPlugin* const good_credentials = credentials.credentials.get();
  registry.add(std::move(credentials));
  registry.add(loader.load("unavailable-runtime", host));

  CHECK(registry.runtime("good-runtime") == good_runtime);
  CHECK(registry.runtime("unavailable-runtime") == nullptr);
  CHECK(registry.runtime("good-credentials") == nullptr);
  CHECK(registry.runtime("absent") == nullptr);
  CHECK(registry.credentials("good-credentials") == good_credentials);
  CHECK(registry.credentials("good-runtime") == nullptr);
  CHECK(registry.credentials("absent") == nullptr);

  const LoadedPlugin* unavailable = registry.find("unavailable-runtime");
  REQUIRE(unavailable != nullptr);
  CHECK(unavailable->reason == "no Go toolchain on PATH");
  CHECK(registry.find("absent") == nullptr);

  UnusedSandbox sandbox;
  RecordingProgress progress;
  CHECK(registry.runtime("good-runtime")->execute({}, sandbox, progress).stdout_text == "mock\n");

  CHECK(registry.list() ==
        std::vector<PluginListEntry>{
            {"good-credentials", "credentials", "2.0.0", "Mock credentials with a fixed token",
             mock_path("good-credentials"), "ready", ""},
            {"good-runtime", "runtime", "1.2.3", "Mock runtime that always prints mock",
             mock_path("good-runtime"), "ready", ""},
            {"unavailable-runtime", "runtime", "0.9.0", "Mock runtime that is never available",
             mock_path("unavailable-runtime"), "unavailable", "no Go toolchain on PATH"},
        });
}

TEST_CASE("a second plugin of the same name is refused and the first one kept") {
  TestHost host;
  const PluginLoader loader({mock_dir()});
  PluginRegistry registry;
  registry.add(loader.load("good-runtime", host));
  const LoadedPlugin* first = registry.find("good-runtime");
  LoadedPlugin again = loader.load("good-runtime", host);
  again.path = "/elsewhere/good-runtime.so";
  CHECK_THROWS_WITH_AS(registry.add(std::move(again)),
                       ("Plugin 'good-runtime' from '/elsewhere/good-runtime.so' is already "
                        "loaded from '" +
                        mock_path("good-runtime") + "': remove one of the two files")
                           .c_str(),
                       PluginLoadError);
  CHECK(registry.find("good-runtime") == first);
  CHECK(registry.list().size() == 1);
}

TEST_CASE("an empty registry has nothing") {
  const PluginRegistry registry;
  CHECK(registry.list().empty());
  CHECK(registry.runtime("good-runtime") == nullptr);
  CHECK(registry.find("good-runtime") == nullptr);
}

TEST_CASE("a plugin brings its own runtime name and config keys: the set is open") {
  TestHost host;
  const PluginLoader loader({mock_dir()});
  LoadedPlugin open = loader.load("open-runtime", host);
  CHECK(open.runtime_names == std::vector<std::string>{"echo"});
  REQUIRE(open.config_keys.size() == 3);
  CHECK(open.config_keys[0].name == "greeting");
  CHECK(open.config_keys[0].type == kg::plugin::ConfigKeyType::text);
  CHECK(open.config_keys[0].default_text == "hello");
  CHECK(open.config_keys[0].help == "What the echo runtime says first.");
  CHECK(open.config_keys[1].choices == std::vector<std::string>{"quiet", "loud"});
  CHECK(open.config_keys[2].min == 1);
  CHECK(open.config_keys[2].max == 3);

  PluginRegistry registry;
  registry.add(loader.load("good-runtime", host));
  registry.add(std::move(open));
  registry.add(loader.load("good-credentials", host));
  // Runtimes are found by the names the descriptors offer, not by plugin name.
  CHECK(registry.runtime_names() == std::vector<std::string>{"good-runtime", "echo"});
  REQUIRE(registry.runtime("echo") != nullptr);
  CHECK(registry.runtime("open-runtime") == nullptr);
  REQUIRE(registry.find_runtime("echo") != nullptr);
  CHECK(registry.find_runtime("echo")->name == "open-runtime");
  UnusedSandbox sandbox;
  RecordingProgress progress;
  CHECK(registry.runtime("echo")->execute({}, sandbox, progress).stdout_text == "mock\n");
}

TEST_CASE("two plugins offering the same runtime name: the second is refused") {
  TestHost host;
  PluginRegistry registry;
  registry.add(PluginLoader({mock_dir()}).load("open-runtime", host));
  LoadedPlugin rival;
  rival.name = "rival";
  rival.path = "/plugins/rival.so";
  rival.runtime_names = {"echo"};
  CHECK_THROWS_WITH_AS(registry.add(std::move(rival)),
                       ("Plugin 'rival' from '/plugins/rival.so' offers runtime 'echo', which "
                        "plugin 'open-runtime' already offers: remove one of the two"),
                       PluginLoadError);
  CHECK(registry.find("rival") == nullptr);
}
