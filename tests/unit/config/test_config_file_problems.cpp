// The file itself: unknown names, plugin sections, malformed lines, unreadable files.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "config_test_support.hpp"
#include "daemon_config.hpp"
#include "plugin_section_check.hpp"

namespace kg::config {
namespace {

using test::isolated_env;
using test::TempDir;
using test::write_file;

using Severity = ConfigIssue::Severity;

TEST_CASE("an unknown key is a warning that lists the section's known keys") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[daemon]\nsockett = /x.sock\nmax_sessions = 4\n");
  const auto loaded = load_config(file);
  CHECK(loaded.config.max_sessions == 4);
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].severity == Severity::warning);
  CHECK(loaded.warnings[0].to_string() ==
        file + ":2: unknown key \"daemon.sockett\" (known keys in [daemon]: socket, state_dir, "
               "log_level, max_sessions, max_queued, queue_timeout_ms, max_request_bytes)");
}

TEST_CASE("a key with a dot in its name is unknown, not a nested value") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[limits]\noutput_bytes.max = 5\n");
  const auto loaded = load_config(file);
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].to_string() ==
        file + ":2: unknown key \"limits.output_bytes.max\" (known keys in [limits]: "
               "run_timeout_ms, max_run_timeout_ms, build_timeout_ms, output_bytes, memory_bytes, pids, cpu_seconds, "
               "file_size_bytes, open_files, disk_bytes)");
  CHECK(loaded.config.limits.output_bytes == 4194304);
}

TEST_CASE("an unknown section is one warning once the plugins are known") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "[network]\nproxy = http://x\nretries = 3\n");
  const auto loaded = load_config(file);
  // Any section may belong to a plugin: the loader hands it on and warns about nothing.
  CHECK(loaded.warnings.empty());
  const auto issues = plugin_section_issues(loaded.config, {{"compiled-go", {"fast_path"}}});
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].to_string() ==
        file + ":2: unknown section [network] (known sections: daemon, plugins, runtime, "
               "credentials, sandbox, kubernetes, cache, limits, api_policy, http, oauth, team; sections of "
               "the loaded plugins: compiled-go)");
}

TEST_CASE("a key outside any section is a warning that says where it belongs") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini", "max_sessions = 3\ncolour = blue\n[daemon]\n");
  const auto loaded = load_config(file);
  CHECK(loaded.config.max_sessions == 16);
  REQUIRE(loaded.warnings.size() == 2);
  // In file order, each with its line.
  CHECK(loaded.warnings[0].to_string() ==
        file + ":1: unknown key \"max_sessions\" outside any section (put it under [daemon])");
  CHECK(loaded.warnings[1].to_string() ==
        file + ":2: unknown key \"colour\" outside any section (keys belong under a section such "
               "as [daemon])");
}

TEST_CASE("plugin sections pass through; a key the plugin does not declare is a warning") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[compiled-go]\nfast_path = false\nwarm_pool = 2\n"
                               "[Creds-ADC]\ncopy_adc_file = true\nadc_fil = /x.json\n"
                               "[yaegi]\nAnything Goes = some value ; x\n"
                               "[creds-workload]\nmetadata_host = 10.0.0.1\n");
  const auto loaded = load_config(file);
  CHECK(loaded.warnings.empty());
  const std::map<std::string, std::map<std::string, std::string>> expected = {
      {"compiled-go", {{"fast_path", "false"}, {"warm_pool", "2"}}},
      {"creds-adc", {{"copy_adc_file", "true"}, {"adc_fil", "/x.json"}}},
      {"yaegi", {{"anything goes", "some value ; x"}}},
      {"creds-workload", {{"metadata_host", "10.0.0.1"}}},
  };
  CHECK(loaded.config.plugin_sections == expected);

  // The keys come from the loaded plugins' descriptors; a plugin that declares none has none.
  const std::vector<PluginSection> plugins = {
      {"compiled-go", {"fast_path"}},
      {"creds-adc", {"adc_file", "copy_adc_file"}},
      {"creds-workload", {"metadata_host"}},
      {"yaegi", {}},
  };
  std::vector<std::string> rendered;
  for (const auto& issue : plugin_section_issues(loaded.config, plugins)) {
    CHECK(issue.severity == Severity::warning);
    rendered.push_back(issue.to_string());
  }
  CHECK(rendered == std::vector<std::string>{
                        file + ":3: unknown key \"compiled-go.warm_pool\" (known keys in "
                               "[compiled-go]: fast_path)",
                        file + ":6: unknown key \"creds-adc.adc_fil\" (known keys in [creds-adc]: "
                               "adc_file, copy_adc_file)",
                        file + ":8: unknown key \"yaegi.anything goes\" (known keys in [yaegi]: "
                               "none)",
                    });
}

TEST_CASE("comments with ';' and '#' are ignored, also after a section header") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "\xEF\xBB\xBF# kode-gopher\n; old style\n\n  # indented\r\n"
                               "[daemon] # the daemon\nmax_sessions = 5\r\n[limits] ; limits\n"
                               "output_bytes = 2048\n");
  CHECK(check_config_file(file).empty());
  const auto config = load_config(file).config;
  CHECK(config.max_sessions == 5);
  CHECK(config.limits.output_bytes == 2048);
}

TEST_CASE("malformed lines are errors with their line numbers") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[daemon\nmax_sessions = 2\ngarbage\n= 5\n[]\n[limits] extra\n");
  const auto issues = check_config_file(file);
  std::vector<std::string> rendered;
  for (const auto& issue : issues) {
    CHECK(issue.severity == Severity::error);
    rendered.push_back(issue.to_string());
  }
  CHECK(rendered == std::vector<std::string>{
                        file + ":1: section header \"[daemon\" has no closing \"]\"",
                        file + ":3: expected \"key = value\", got \"garbage\"",
                        file + ":4: \"= 5\" has no key before \"=\"",
                        file + ":5: section header \"[]\" has no name",
                        file + ":6: unexpected text after the section header \"[limits]\"",
                    });
  try {
    load_config(file);
    FAIL("load_config accepted a malformed file");
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    CHECK(what.starts_with("Invalid configuration in " + file + ":\n  " + file +
                           ":1: section header"));
    CHECK(error.issues().size() == 5);
  }
}

TEST_CASE("issues made from several values name the line of the key they are about") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[http]\nlisten = 0.0.0.0:8080\n\nauth = none\n"
                               "trusted_proxy = true\n[kubernetes]\nwarm_pool = go-pool\n"
                               "[sandbox]\nhost_uid = 0\n[daemon]\nmax_sessions = 2\n"
                               "max_sessions = 0\n");
  std::vector<std::string> rendered;
  for (const auto& issue : check_config_file(file)) rendered.push_back(issue.to_string());
  // The last of a repeated key is the value used, and its line is named.
  CHECK(std::find(rendered.begin(), rendered.end(),
                  file + ":12: daemon.max_sessions: must be an integer from 1 to 1024, got \"0\"") !=
        rendered.end());
  CHECK(std::find(rendered.begin(), rendered.end(),
                  file + ":9: sandbox.host_uid: 0 runs a root daemon's sandboxes as host root: a "
                         "sandbox escape would be host root (remove the key to run them as uid "
                         "65534)") != rendered.end());
  CHECK(std::find(rendered.begin(), rendered.end(),
                  file + ":7: kubernetes.warm_pool: ignored: the [kubernetes] keys are read only "
                         "with [sandbox] provider = kubernetes") != rendered.end());
  const auto auth = std::find_if(rendered.begin(), rendered.end(), [&](const std::string& line) {
    return line.starts_with(file + ":4: http.auth: none lets everyone who can connect run code");
  });
  CHECK(auth != rendered.end());
}

TEST_CASE("a directory is not a config file") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto issues = check_config_file(dir.path());
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].to_string() == dir.path() + ": is a directory, not a config file");
  CHECK_THROWS_WITH_AS(load_config(dir.path()),
                       ("Invalid configuration in " + dir.path() + ":\n  " + dir.path() +
                        ": is a directory, not a config file")
                           .c_str(),
                       ConfigError);
}

TEST_CASE("check_config_file reports warnings and errors together and never throws") {
  TempDir dir;
  auto env = isolated_env(dir.path());
  const auto file = write_file(dir / "kg.ini",
                               "[daemon]\nmax_sessions = many\nverbose = yes\n");
  const auto issues = check_config_file(file);
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].severity == Severity::warning);
  CHECK(issues[0].key == "");
  CHECK(issues[0].to_string() ==
        file + ":3: unknown key \"daemon.verbose\" (known keys in [daemon]: socket, state_dir, "
               "log_level, max_sessions, max_queued, queue_timeout_ms, max_request_bytes)");
  CHECK(issues[1].severity == Severity::error);
  CHECK(issues[1].key == "daemon.max_sessions");
  CHECK(issues[1].message == "must be an integer from 1 to 1024, got \"many\"");
  CHECK(issues[1].line == 2);
  CHECK(issues[1].to_string() ==
        file + ":2: daemon.max_sessions: must be an integer from 1 to 1024, got \"many\"");

  const auto missing = check_config_file(dir / "missing.ini");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].severity == Severity::error);
  CHECK(missing[0].to_string() == dir / "missing.ini" + ": does not exist");
}

}  // namespace
}  // namespace kg::config
