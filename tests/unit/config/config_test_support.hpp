// Helpers for the config tests: a temporary directory removed afterwards, environment
// variables set or unset for one test and restored after it, and writing a config file.
#pragma once

#include "../../support/temp_dir.hpp"
#include "config_default_paths.hpp"
#include "daemon_config.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kg::config::test {

// Named per suite, so a leftover folder says which tests made it.
class TempDir : public kg::test::TempDir {
 public:
  TempDir() : kg::test::TempDir("kg-config-test-") {}
};

// Sets (or, with nullopt, unsets) variables; restores what was there when destroyed.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      apply(name, value);
    }
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) apply(it->first, it->second);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  static void apply(const char* name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// All the variables default paths depend on, unset, with HOME at `home`.
inline ScopedEnv isolated_env(const std::string& home) {
  return ScopedEnv{{"HOME", home},
                   {"KODE_GOPHER_CONFIG", std::nullopt},
                   {"XDG_CONFIG_HOME", std::nullopt},
                   {"XDG_STATE_HOME", std::nullopt},
                   {"XDG_RUNTIME_DIR", std::nullopt}};
}

// The state dir load_config picks by default for a user whose home is `home`: root's is always
// /var/lib/kode-gopher (the tests run as root in CI), so the HOME and XDG rules are checked on
// default_state_dir(uid) directly as well.
inline std::string expected_default_state_dir(const std::string& home_state_dir) {
  return ::geteuid() == 0 ? std::string(kRootStateDir) : home_state_dir;
}

inline std::string write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The issues check_config_file reports for a file with `text`, rendered, with the file's
// path replaced by "<file>".
inline std::vector<std::string> issues_for(const TempDir& dir, const std::string& text) {
  const auto file = write_file(dir / "kg.ini", text);
  std::vector<std::string> rendered;
  for (const auto& issue : check_config_file(file)) {
    auto line = issue.to_string();
    if (line.starts_with(file)) line.replace(0, file.size(), "<file>");
    rendered.push_back(line);
  }
  return rendered;
}

}  // namespace kg::config::test
