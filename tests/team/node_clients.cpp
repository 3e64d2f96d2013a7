#include "node_clients.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "client_runner.hpp"
#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

namespace kg::test {
namespace {

std::string node_dir() {
  static const std::string dir = [] {
    const std::string d = required_env("KG_TEAM_NODE_DIR");
    install_node_package(d);
    return d;
  }();
  return dir;
}

}  // namespace

rapidjson::Document run_team_client(const std::string& script,
                                    const std::vector<std::string>& args,
                                    const std::map<std::string, std::string>& env) {
  const std::string dir = node_dir();
  std::vector<std::string> full{script};
  full.insert(full.end(), args.begin(), args.end());
  const CommandOutcome outcome =
      run_command(dir + "/node_modules/node/bin/node", full, dir, env);
  INFO(outcome.output);
  REQUIRE(outcome.exit_code == 0);
  const auto end = outcome.output.find_last_not_of("\n");
  REQUIRE(end != std::string::npos);
  const auto start = outcome.output.rfind('\n', end);
  const std::string last = outcome.output.substr(start == std::string::npos ? 0 : start + 1,
                                                 end - (start == std::string::npos ? 0 : start + 1) + 1);
  kg::json::ReadJson document_read = kg::test::read_test_json(last);
  rapidjson::Document& document = document_read.document;
  REQUIRE_FALSE(document_read.refused.has_value());
  REQUIRE(document.IsObject());
  return std::move(document);
}

NpxOutcome run_team_npx(const std::vector<std::string>& args) {
  const std::string dir = node_dir();
  const std::string home = unique_temp_dir("team-npx-home");
  std::vector<std::string> full{"--no-install"};
  full.insert(full.end(), args.begin(), args.end());
  // The npx that npm installed next to the Node it runs (node_modules/.bin/npx may be absent).
  const CommandOutcome outcome = run_command(
      required_env("KG_NPX"), full, dir,
      {{"HOME", home}, {"PATH", dir + "/node_modules/node/bin:" + dir + "/node_modules/.bin:" +
                                    std::string(std::getenv("PATH") ? std::getenv("PATH") : "")}});
  std::filesystem::remove_all(home);
  return {outcome.exit_code, outcome.output};
}

std::string text_at(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return {};
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

}  // namespace kg::test
