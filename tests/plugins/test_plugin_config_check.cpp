// `kode-gopherd --check-config FILE` against real plugin files: a plugin section is checked
// against the keys its plugin's descriptor declares, so a plugin the daemon has no table for
// (the mock open-runtime) brings its own keys, and the real plugins theirs.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "../support/temp_dir.hpp"

namespace {

struct Checked {
  int exit_code = -1;
  std::string output;
};

// Runs the daemon binary's checker on a file holding `text`, with HOME in the scratch folder.
Checked check(const kg::test::TempDir& dir, const std::string& text) {
  const std::string file = dir / "kg.ini";
  std::ofstream(file) << text;
  const char* daemon = std::getenv("KODE_GOPHERD");
  REQUIRE(daemon != nullptr);
  const std::string command = "HOME='" + dir.path() + "' '" + daemon + "' --check-config '" +
                              file + "' 2>&1";
  Checked checked;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) checked.output.append(buffer, count);
  const int status = ::pclose(pipe);
  checked.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return checked;
}

bool has_line(const std::string& output, const std::string& line) {
  return output.find(line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("a plugin's own keys come from its descriptor: only undeclared keys are warned about") {
  kg::test::TempDir dir("kg-plugin-config-check-");
  const std::string file = dir / "kg.ini";
  const char* mocks = std::getenv("KG_MOCK_PLUGIN_DIR");
  REQUIRE(mocks != nullptr);
  const Checked checked =
      check(dir, std::string("[plugins]\ndirs = ") + mocks +
                     "\n[open-runtime]\ngreeting = hi\nvoice = loud\nbogus = 1\n"
                     "[network]\nproxy = x\n[good-runtime]\nspeed = 2\n");
  CAPTURE(checked.output);
  CHECK(checked.exit_code == 0);
  CHECK(has_line(checked.output, "warning: " + file +
                                     ":6: unknown key \"open-runtime.bogus\" (known keys in "
                                     "[open-runtime]: greeting, voice, repeat)"));
  CHECK(checked.output.find("open-runtime.greeting") == std::string::npos);
  CHECK(checked.output.find("open-runtime.voice") == std::string::npos);
  CHECK(has_line(checked.output, "warning: " + file +
                                     ":10: unknown key \"good-runtime.speed\" (known keys in "
                                     "[good-runtime]: none)"));
  const auto network = checked.output.find("warning: " + file + ":8: unknown section [network] (");
  REQUIRE(network != std::string::npos);
  // The checker reads descriptors without creating plugins, so every readable one counts.
  CHECK(checked.output.find("sections of the loaded plugins: availability-throws, "
                            "create-returns-null, good-credentials, good-runtime, open-runtime, "
                            "throws-in-create, throws-non-std, unavailable-runtime)\n",
                            network) != std::string::npos);
  // A plugin the daemon would not load is said so, not silently ignored.
  CHECK(checked.output.find("warning: " + file + ": plugin not loaded, its section is not "
                            "checked: Plugin 'wrong-abi' at '") != std::string::npos);
}

TEST_CASE("a real plugin declares its keys, and errors still make the check fail") {
  kg::test::TempDir dir("kg-plugin-config-check-");
  const std::string file = dir / "kg.ini";
  const Checked checked = check(dir, "[compiled-go]\nfast_path = false\nwarm_pool = 2\n");
  CAPTURE(checked.output);
  CHECK(checked.exit_code == 0);
  CHECK(checked.output ==
        "warning: " + file +
            ":3: unknown key \"compiled-go.warm_pool\" (known keys in [compiled-go]: fast_path)\n");

  const Checked broken = check(dir, "[daemon]\nmax_sessions = 0\n");
  CHECK(broken.exit_code == 1);
  CHECK(broken.output == "error: " + file +
                             ":2: daemon.max_sessions: must be an integer from 1 to 1024, got "
                             "\"0\"\n");

  const Checked clean = check(dir, "[compiled-go]\nfast_path = true\n");
  CHECK(clean.exit_code == 0);
  CHECK(clean.output == file + ": OK\n");
}

TEST_CASE("runtime names come from the plugins: a plugin's own name may be the default") {
  kg::test::TempDir dir("kg-plugin-config-check-");
  const std::string file = dir / "kg.ini";
  const char* mocks = std::getenv("KG_MOCK_PLUGIN_DIR");
  REQUIRE(mocks != nullptr);
  const std::string plugins = std::string("[plugins]\ndirs = ") + mocks + "\n";
  // open-runtime offers "echo", a name no table in the daemon holds.
  const Checked own = check(dir, plugins + "[runtime]\ndefault = echo\nauto_order =\n");
  CAPTURE(own.output);
  CHECK(own.output.find("runtime.") == std::string::npos);

  // With the real plugins: a name none offers is an error at its line, naming what there is.
  const Checked missing = check(dir, "[runtime]\ndefault = tinygo\n");
  CAPTURE(missing.output);
  CHECK(missing.exit_code == 1);
  CHECK(has_line(missing.output, "error: " + file +
                                     ":2: runtime.default: no loaded runtime plugin offers "
                                     "\"tinygo\"; the loaded plugins offer: compiled-go, yaegi, "
                                     "and auto"));
  const Checked order = check(dir, "[runtime]\nauto_order = compiled-go, tinygo\n");
  CAPTURE(order.output);
  CHECK(order.exit_code == 0);
  CHECK(has_line(order.output, "warning: " + file +
                                   ":2: runtime.auto_order: no loaded runtime plugin offers "
                                   "\"tinygo\", so calls cannot ask for auto; the loaded plugins "
                                   "offer: compiled-go, yaegi"));
}
