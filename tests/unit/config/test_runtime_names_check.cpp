// [runtime] default and auto_order name runtimes the loaded plugins declare; the checks run once
// the plugins are known and name the key's line.
#include <doctest/doctest.h>

#include "daemon_config.hpp"
#include "runtime_names_check.hpp"

using kg::config::ConfigIssue;
using kg::config::DaemonConfig;
using kg::config::runtime_name_issues;

namespace {

const std::vector<std::string> kLoaded = {"compiled-go", "yaegi"};

DaemonConfig config_with(std::string fallback, std::vector<std::string> order) {
  DaemonConfig config;
  config.source_path = "/etc/kg.ini";
  config.default_runtime = std::move(fallback);
  config.auto_order = std::move(order);
  config.key_lines = {{"runtime.default", 4}, {"runtime.auto_order", 5}};
  return config;
}

}  // namespace

TEST_CASE("the defaults fit the plugins this build ships") {
  CHECK(runtime_name_issues(DaemonConfig{}, kLoaded).empty());
  CHECK(runtime_name_issues(config_with("auto", {"yaegi", "compiled-go"}), kLoaded).empty());
  CHECK(runtime_name_issues(config_with("yaegi", {}), kLoaded).empty());
}

TEST_CASE("a default no plugin offers is an error at its line, naming what is offered") {
  const auto issues = runtime_name_issues(config_with("tinygo", {"yaegi", "compiled-go"}), kLoaded);
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].severity == ConfigIssue::Severity::error);
  CHECK(issues[0].to_string() ==
        "/etc/kg.ini:4: runtime.default: no loaded runtime plugin offers \"tinygo\"; the loaded "
        "plugins offer: compiled-go, yaegi, and auto");
}

TEST_CASE("auto as the default needs an auto_order") {
  const auto issues = runtime_name_issues(config_with("auto", {}), kLoaded);
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].key == "runtime.default");
  CHECK(issues[0].message.find("runtime.auto_order is empty") != std::string::npos);
}

TEST_CASE("auto_order is two different offered names") {
  const auto one = runtime_name_issues(config_with("compiled-go", {"yaegi"}), kLoaded);
  REQUIRE(one.size() == 1);
  CHECK(one[0].to_string() ==
        "/etc/kg.ini:5: runtime.auto_order: must be two different runtime names, the first tried "
        "first (for example \"yaegi, compiled-go\"), or empty for no auto; got 1 name");
  CHECK(runtime_name_issues(config_with("compiled-go", {"yaegi", "yaegi"}), kLoaded).size() == 1);
  const auto missing =
      runtime_name_issues(config_with("compiled-go", {"tinygo", "compiled-go"}), kLoaded);
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].severity == ConfigIssue::Severity::warning);
  CHECK(missing[0].message ==
        "no loaded runtime plugin offers \"tinygo\", so calls cannot ask for auto; the loaded "
        "plugins offer: compiled-go, yaegi");
}

TEST_CASE("auto as the default with an auto_order naming a missing plugin is an error") {
  const auto issues = runtime_name_issues(config_with("auto", {"yaegi", "compiled-go"}),
                                          {"compiled-go"});
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].severity == ConfigIssue::Severity::warning);  // auto_order
  CHECK(issues[1].key == "runtime.default");
  CHECK(issues[1].severity == ConfigIssue::Severity::error);
}
