// Defaults: which file is read, and what every value is when nothing sets it.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config_test_support.hpp"
#include "daemon_config.hpp"

namespace kg::config {
namespace {

using test::expected_default_state_dir;
using test::isolated_env;
using test::ScopedEnv;
using test::TempDir;
using test::write_file;

TEST_CASE("with no config file every value is its default") {
  TempDir home;
  auto env = isolated_env(home.path());
  const auto loaded = load_config(std::nullopt);
  const auto& config = loaded.config;
  CHECK(loaded.warnings.empty());
  CHECK(config.source_path == "");
  CHECK(config.state_dir == expected_default_state_dir(home.path() + "/.local/state/kode-gopher"));
  CHECK(config.socket_path == expected_default_state_dir(home.path() + "/.local/state/kode-gopher") + "/daemon.sock");
  CHECK(config.log_level == "info");
  CHECK(config.max_sessions == 16);
  CHECK(config.max_request_bytes == 16777216);
  CHECK(config.plugin_dirs.empty());
  CHECK(config.default_runtime == "compiled-go");
  CHECK(config.sandbox_provider == "local");
  CHECK(config.bwrap_path == "bwrap");
  CHECK(config.sandbox_server_binary == "");
  CHECK(config.cacheprog_binary == "");
  CHECK(config.go_root == "");
  CHECK(config.base_cache_dir == "");
  CHECK(config.limits.run_timeout_ms == 60000);
  CHECK(config.limits.max_run_timeout_ms == 600000);
  CHECK(config.limits.build_timeout_ms == 300000);
  CHECK(config.limits.output_bytes == 4194304);
  CHECK(config.plugin_sections.empty());
}

TEST_CASE("state dir and socket follow XDG_STATE_HOME and XDG_RUNTIME_DIR") {
  TempDir home;
  auto env = isolated_env(home.path());
  ScopedEnv xdg{{"XDG_STATE_HOME", "/xdg/state"}, {"XDG_RUNTIME_DIR", "/run/user/1234"}};
  const auto config = load_config(std::nullopt).config;
  CHECK(config.state_dir == expected_default_state_dir("/xdg/state/kode-gopher"));
  CHECK(default_state_dir(1000) == "/xdg/state/kode-gopher");
  CHECK(default_state_dir(0) == "/var/lib/kode-gopher");
  CHECK(config.socket_path == "/run/user/1234/kode-gopher/daemon.sock");
}

TEST_CASE("root's default state dir is /var/lib/kode-gopher, whatever HOME and XDG say") {
  TempDir home;
  auto env = isolated_env(home.path());
  ScopedEnv xdg{{"XDG_STATE_HOME", "/xdg/state"}};
  CHECK(default_state_dir(0) == "/var/lib/kode-gopher");
  CHECK(default_state_dir(1000) == "/xdg/state/kode-gopher");
}

TEST_CASE("a non-root user's default state dir is under HOME") {
  TempDir home;
  auto env = isolated_env(home.path());
  CHECK(default_state_dir(1000) == home.path() + "/.local/state/kode-gopher");
}

TEST_CASE("relative XDG variables are ignored, as the XDG spec says") {
  TempDir home;
  auto env = isolated_env(home.path());
  ScopedEnv xdg{{"XDG_STATE_HOME", "state"}, {"XDG_RUNTIME_DIR", "run"}};
  CHECK(default_state_dir(1000) == home.path() + "/.local/state/kode-gopher");
  const auto config = load_config(std::nullopt).config;
  CHECK(config.state_dir == expected_default_state_dir(home.path() + "/.local/state/kode-gopher"));
  CHECK(config.socket_path == expected_default_state_dir(home.path() + "/.local/state/kode-gopher") + "/daemon.sock");
}

TEST_CASE("without HOME the state dir is /tmp/kode-gopher-<uid>") {
  auto env = isolated_env("");
  ScopedEnv no_home{{"HOME", std::nullopt}};
  const auto loaded = load_config(std::nullopt);
  CHECK(default_state_dir(1000) == "/tmp/kode-gopher-1000");
  const std::string state_dir = expected_default_state_dir("/tmp/kode-gopher-" + std::to_string(::getuid()));
  CHECK(loaded.config.state_dir == state_dir);
  CHECK(loaded.config.socket_path == state_dir + "/daemon.sock");
  CHECK(loaded.config.source_path == "");
}

TEST_CASE("the socket default uses a configured state_dir") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[daemon]\nstate_dir = /srv/kg\n");
  const auto config = load_config(file).config;
  CHECK(config.state_dir == "/srv/kg");
  CHECK(config.socket_path == "/srv/kg/daemon.sock");
}

TEST_CASE("default_config_path: KODE_GOPHER_CONFIG, else XDG_CONFIG_HOME, else HOME") {
  auto env = isolated_env("/home/tester");
  CHECK(default_config_path("") == "/home/tester/.config/kode-gopher/kode-gopher.ini");
  {
    ScopedEnv xdg{{"XDG_CONFIG_HOME", "/xdg/config"}};
    CHECK(default_config_path("") == "/xdg/config/kode-gopher/kode-gopher.ini");
    ScopedEnv named{{"KODE_GOPHER_CONFIG", "/etc/kg.ini"}};
    CHECK(default_config_path("") == "/etc/kg.ini");
  }
  ScopedEnv no_home{{"HOME", std::nullopt}};
  CHECK(default_config_path("") == "");
}

TEST_CASE("default_config_path: the installed system-wide file when the user has none") {
  TempDir dir;
  auto env = isolated_env(dir.path() + "/home");
  const std::string system_file = dir.path() + "/etc/kode-gopher.ini";
  const std::string user_file = dir.path() + "/home/.config/kode-gopher/kode-gopher.ini";
  // Neither exists: the user's path, where messages tell them to put one.
  CHECK(default_config_path(system_file) == user_file);
  std::filesystem::create_directories(dir.path() + "/etc");
  std::ofstream(system_file) << "[daemon]\n";
  CHECK(default_config_path(system_file) == system_file);
  std::filesystem::create_directories(dir.path() + "/home/.config/kode-gopher");
  std::ofstream(user_file) << "[daemon]\n";
  CHECK(default_config_path(system_file) == user_file);
  // A file named by KODE_GOPHER_CONFIG wins over both.
  ScopedEnv named{{"KODE_GOPHER_CONFIG", "/etc/kg.ini"}};
  CHECK(default_config_path(system_file) == "/etc/kg.ini");
}

TEST_CASE("the default file is read when it exists") {
  TempDir home;
  auto env = isolated_env(home.path());
  const auto file = write_file(home / ".config/kode-gopher/kode-gopher.ini",
                               "[daemon]\nmax_sessions = 3\n");
  const auto loaded = load_config(std::nullopt);
  CHECK(loaded.config.source_path == file);
  CHECK(loaded.config.max_sessions == 3);
}

TEST_CASE("a missing explicitly named file is an error") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto missing = dir / "nope.ini";
  try {
    load_config(missing);
    FAIL("load_config accepted a missing file");
  } catch (const ConfigError& error) {
    CHECK(std::string(error.what()) == "Config file " + missing + " does not exist");
    REQUIRE(error.issues().size() == 1);
    CHECK(error.issues()[0].to_string() == missing + ": does not exist");
    CHECK(error.issues()[0].severity == ConfigIssue::Severity::error);
  }
}

TEST_CASE("a missing file named by KODE_GOPHER_CONFIG is an error too") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto missing = dir / "nope.ini";
  ScopedEnv named{{"KODE_GOPHER_CONFIG", missing}};
  CHECK_THROWS_WITH_AS(load_config(std::nullopt),
                       ("Config file " + missing +
                        " does not exist (named by KODE_GOPHER_CONFIG)").c_str(),
                       ConfigError);
}

TEST_CASE("an empty KODE_GOPHER_CONFIG counts as unset") {
  TempDir home;
  auto env = isolated_env(home.path());
  ScopedEnv empty{{"KODE_GOPHER_CONFIG", ""}};
  CHECK(default_config_path() == home.path() + "/.config/kode-gopher/kode-gopher.ini");
  const auto loaded = load_config(std::nullopt);
  CHECK(loaded.config.source_path == "");
  CHECK(loaded.config.max_sessions == 16);
}

}  // namespace
}  // namespace kg::config
