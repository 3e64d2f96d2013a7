#include "sealed_runs.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "../support/test_json.hpp"

namespace kg::test::egress {

void start_with_environment(DaemonFixture& daemon, const EnvironmentChange& change) {
  EnvironmentChange saved;
  for (const auto& [name, value] : change) {
    const char* had = std::getenv(name.c_str());
    saved.emplace_back(name, had ? std::optional<std::string>(had) : std::nullopt);
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  struct Restore {
    const EnvironmentChange& saved;
    ~Restore() {
      for (const auto& [name, value] : saved) {
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
      }
    }
  } restore{saved};
  daemon.start();
}

EnvironmentChange module_mirror_environment() {
  const std::string mirror = required_env("KG_PUBSUB_MODULES");
  REQUIRE_MESSAGE(std::ifstream(mirror + "/cache/download/cloud.google.com/go/pubsub/v2/@v/list"),
                  mirror << " has no cloud.google.com/go/pubsub/v2: scripts/setup.sh --tests "
                            "fills it");
  return {{"GOPROXY", "file://" + mirror + "/cache/download"}, {"GOSUMDB", "off"}};
}

std::string data_program(const std::string& name, const std::string& replace, const std::string& with) {
  const std::string path = required_env("KG_HOSTILE_DATA_DIR") + "/" + name;
  std::ifstream in(path);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!replace.empty()) {
    const auto at = source.find(replace);
    INFO(path << " should hold " << replace);
    REQUIRE(at != std::string::npos);
    source.replace(at, replace.size(), with);
  }
  return source;
}

std::string ProgramRun::describe() const {
  return "exit " + std::to_string(exit_code) + "\nstdout:\n" + out + "\nstderr:\n" + err;
}

ProgramRun exec_program(const DaemonFixture& daemon, const std::string& file,
                        const std::string& source, const std::vector<std::string>& flags) {
  const std::string path = daemon.dir() + "/" + file;
  std::ofstream(path) << source;
  std::vector<std::string> args = {"--config", daemon.config_path(), "exec", "--json"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(path);
  ProgramRun run;
  run.exit_code = run_cli(args, run.out, run.err);
  run.read = read_test_json(run.out);
  return run;
}

std::vector<std::string> api_call_lines(const rapidjson::Value& result) {
  std::vector<std::string> lines;
  if (!result.IsObject() || !result.HasMember("api_calls")) return lines;
  for (const auto& call : result["api_calls"]["calls"].GetArray()) {
    std::string line = member_text(call, "method");
    if (call.HasMember("refused")) line += " refused:" + member_text(call, "refused");
    lines.push_back(line);
  }
  return lines;
}

std::string member_text(const rapidjson::Value& object, const char* name) {
  return object.IsObject() && object.HasMember(name) && object[name].IsString()
             ? object[name].GetString()
             : "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace kg::test::egress
