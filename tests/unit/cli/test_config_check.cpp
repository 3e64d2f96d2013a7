// `kode-gopher config check`: which file it checks and how it reports, against real files.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "daemon_config.hpp"
#include "scratch_dir.hpp"

using kg::cli::GlobalOptions;
using kg::cli::run_config_check;
using kg::cli_test::ScratchDir;

namespace {

// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct CheckOutcome {
  int exit_code;
  std::string output;
};

CheckOutcome check(const GlobalOptions& globals, const std::string& file) {
  std::ostringstream out;
  const int exit_code = run_config_check(globals, file, out);
  return {exit_code, out.str()};
}

}  // namespace

TEST_CASE("a clean file is OK") {
  ScratchDir scratch;
  const std::string file = scratch.write("kg.ini", "[daemon]\nmax_sessions = 4\n").string();
  const CheckOutcome outcome = check({}, file);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.output == file + ": OK\n");
}

TEST_CASE("warnings alone exit 0; any error exits 1; each issue on its own line") {
  ScratchDir scratch;
  const std::string warned = scratch.write("warned.ini", "[daemon]\nno_such_key = 1\n").string();
  const auto warnings = kg::config::check_config_file(warned);
  REQUIRE(warnings.size() == 1);
  const CheckOutcome warned_outcome = check({}, warned);
  CHECK(warned_outcome.exit_code == 0);
  CHECK(warned_outcome.output == "warning: " + warnings[0].to_string() + "\n");

  const std::string broken =
      scratch.write("broken.ini", "[daemon]\nno_such_key = 1\nmax_sessions = 0\n").string();
  const auto issues = kg::config::check_config_file(broken);
  REQUIRE(issues.size() == 2);
  std::string expected;
  for (const auto& issue : issues) {
    expected += (issue.severity == kg::config::ConfigIssue::Severity::error ? "error: "
                                                                             : "warning: ") +
                issue.to_string() + "\n";
  }
  const CheckOutcome broken_outcome = check({}, broken);
  CHECK(broken_outcome.exit_code == 1);
  CHECK(broken_outcome.output == expected);
  CHECK(broken_outcome.output.find("error: " + broken + ":3: daemon.max_sessions: ") !=
        std::string::npos);
}

TEST_CASE("the file argument wins over --config, which wins over the default") {
  ScratchDir scratch;
  const std::string named = scratch.write("named.ini", "").string();
  GlobalOptions globals;
  globals.config_path = (scratch.path() / "missing.ini").string();
  CHECK(check(globals, named).output == named + ": OK\n");
  const CheckOutcome from_option = check(globals, "");
  CHECK(from_option.exit_code == 1);
  CHECK(from_option.output == "error: " + globals.config_path + ": does not exist\n");
}

TEST_CASE("a missing default file means every key has its default") {
  ScratchDir scratch;
  const ScopedEnv no_env_config("KODE_GOPHER_CONFIG", std::nullopt);
  const ScopedEnv config_home("XDG_CONFIG_HOME", scratch.path().string());
  const CheckOutcome outcome = check({}, "");
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.output == scratch.path().string() +
                              "/kode-gopher/kode-gopher.ini: not present; every key has its "
                              "default\n");
}

TEST_CASE("a file named by KODE_GOPHER_CONFIG must exist") {
  ScratchDir scratch;
  const std::string missing = (scratch.path() / "env.ini").string();
  const ScopedEnv env_config("KODE_GOPHER_CONFIG", missing);
  const CheckOutcome outcome = check({}, "");
  CHECK(outcome.exit_code == 1);
  CHECK(outcome.output == "error: " + missing + ": does not exist\n");
}

TEST_CASE("plugin sections are checked by the daemon binary, against the plugins it loads") {
  ScratchDir scratch;
  const std::string file =
      scratch.write("kg.ini", "[compiled-go]\nfast_path = false\nwarm_pool = 2\n").string();
  const CheckOutcome outcome = check({}, file);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.output == "warning: " + file +
                              ":3: unknown key \"compiled-go.warm_pool\" (known keys in "
                              "[compiled-go]: fast_path)\n");
}
