// Every way PluginLoader::load() refuses a plugin, each with its exact message.
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "plugin_abi.hpp"
#include "plugin_load_error.hpp"
#include "plugin_loader.hpp"
#include "plugin_test_fixtures.hpp"

namespace fs = std::filesystem;
using kg::plugin_host::PluginLoadError;
using kg::plugin_host::PluginLoader;
using kg::plugin_test::mock_dir;
using kg::plugin_test::mock_path;
using kg::plugin_test::ScratchDir;
using kg::plugin_test::TestHost;

namespace {

// The message load() throws, or "" when it does not throw a PluginLoadError.
std::string load_error(const PluginLoader& loader, const std::string& name) {
  TestHost host;
  try {
    loader.load(name, host);
  } catch (const PluginLoadError& error) {
    return error.what();
  }
  return "";
}

std::string at(const std::string& name) {
  return "Plugin '" + name + "' at '" + mock_path(name) + "'";
}

}  // namespace

TEST_CASE("a name that is not a plugin name is refused before any file is looked at") {
  ScratchDir dir;
  // A valid plugin under an invalid name: were the name not checked first, it would load.
  fs::copy_file(mock_path("good-runtime"), dir / "Good_Runtime.so");
  const PluginLoader loader({dir.str(), mock_dir()});
  for (const std::string name : {"", "Good_Runtime", "../mock/good-runtime", "a/b", "-x",
                                 "x.so", "..", ".", "good runtime", "good-runtime\n"}) {
    CAPTURE(name);
    CHECK(load_error(loader, name) ==
          "Invalid plugin name '" + name + "': use lowercase letters, digits and '-'");
  }
}

TEST_CASE("plugin names are lowercase letters, digits and '-', not starting with '-'") {
  using kg::plugin_host::is_valid_plugin_name;
  CHECK(is_valid_plugin_name("compiled-go"));
  CHECK(is_valid_plugin_name("creds-adc2"));
  CHECK(is_valid_plugin_name("0"));
  CHECK(is_valid_plugin_name("a-"));
  CHECK_FALSE(is_valid_plugin_name(""));
  CHECK_FALSE(is_valid_plugin_name("-a"));
  CHECK_FALSE(is_valid_plugin_name("Yaegi"));
  CHECK_FALSE(is_valid_plugin_name("a_b"));
  CHECK_FALSE(is_valid_plugin_name("a.b"));
  CHECK_FALSE(is_valid_plugin_name("a/b"));
}

TEST_CASE("a plugin in none of the directories names them all") {
  ScratchDir first;
  const PluginLoader loader({first.str(), mock_dir()});
  CHECK(load_error(loader, "absent") == "Plugin 'absent' not found in plugin directories: " +
                                            first.str() + ", " + mock_dir());
  CHECK(load_error(PluginLoader({}), "absent") ==
        "Plugin 'absent' not found in plugin directories: (none configured)");
}

TEST_CASE("a directory entry that is not a regular file is not a plugin") {
  ScratchDir dir;
  fs::create_directory(dir / "subdir.so");
  fs::create_symlink(dir / "nowhere.so", dir / "dangling.so");
  const PluginLoader loader({dir.str()});
  CHECK(load_error(loader, "subdir") ==
        "Plugin 'subdir' not found in plugin directories: " + dir.str());
  CHECK(load_error(loader, "dangling") ==
        "Plugin 'dangling' not found in plugin directories: " + dir.str());
}

TEST_CASE("a symlink that leads out of its plugin directory is refused") {
  ScratchDir dir;
  fs::create_symlink(mock_path("good-runtime"), dir / "escape.so");
  // Same name as its target, so only the directory check can stop it.
  fs::create_symlink(mock_path("good-runtime"), dir / "good-runtime.so");
  const PluginLoader loader({dir.str()});
  CHECK(load_error(loader, "escape") ==
        "Plugin 'escape' at '" + dir.str() + "/escape.so' resolves outside its plugin directory");
  CHECK(load_error(loader, "good-runtime") == "Plugin 'good-runtime' at '" + dir.str() +
                                                  "/good-runtime.so' resolves outside its plugin "
                                                  "directory");
}

TEST_CASE("a file that is not a shared object reports the dynamic loader's reason") {
  ScratchDir dir;
  const fs::path broken = dir / "broken.so";
  std::ofstream(broken) << "this is not an ELF file\n";

  // What the dynamic loader itself says about this file.
  dlerror();
  void* handle = dlopen(broken.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle == nullptr);
  const std::string reason = dlerror();
  REQUIRE_FALSE(reason.empty());

  CHECK(load_error(PluginLoader({dir.str()}), "broken") ==
        "Failed to load plugin 'broken' from '" + broken.string() + "': " + reason);
}

TEST_CASE("each defective mock plugin is refused with its own message") {
  const PluginLoader loader({mock_dir()});
  CHECK(load_error(loader, "no-symbol") ==
        at("no-symbol") + " does not export kode_gopher_plugin_descriptor");
  CHECK(load_error(loader, "null-descriptor") == at("null-descriptor") + " returned no descriptor");
  CHECK(load_error(loader, "wrong-abi") == at("wrong-abi") +
                                               " was built for plugin ABI 20200101, this daemon "
                                               "speaks " +
                                               std::to_string(kg::plugin::kAbiVersion));
  CHECK(load_error(loader, "wrong-kind") == at("wrong-kind") + " has unknown kind 7");
  CHECK(load_error(loader, "missing-create") ==
        at("missing-create") + " declares kind runtime but has no create function for it");
  CHECK(load_error(loader, "misnamed") ==
        "Plugin file '" + mock_path("misnamed") + "' declares the name 'other-name'");
  CHECK(load_error(loader, "no-runtime-name") ==
        at("no-runtime-name") + " is a runtime plugin but declares no runtime name");
}

TEST_CASE("what create throws is reported with its whole chain") {
  const PluginLoader loader({mock_dir()});
  CHECK(load_error(loader, "throws-in-create") ==
        at("throws-in-create") + " failed to start: compiled-go setup failed: cannot read config");
  CHECK(load_error(loader, "throws-non-std") ==
        at("throws-non-std") + " failed to start: unknown exception");
  CHECK(load_error(loader, "create-returns-null") ==
        at("create-returns-null") + " failed to start: its create function returned no object");
}

TEST_CASE("an availability check that throws is a load failure, not an unavailable plugin") {
  const PluginLoader loader({mock_dir()});
  CHECK(load_error(loader, "availability-throws") ==
        at("availability-throws") + " failed its availability check: go version probe crashed");
}

TEST_CASE("a refused plugin can be asked for again and is refused the same way") {
  const PluginLoader loader({mock_dir()});
  const std::string expected = at("wrong-abi") + " was built for plugin ABI 20200101, this " +
                               "daemon speaks " + std::to_string(kg::plugin::kAbiVersion);
  CHECK(load_error(loader, "wrong-abi") == expected);
  CHECK(load_error(loader, "wrong-abi") == expected);
}
