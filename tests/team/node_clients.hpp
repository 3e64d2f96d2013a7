// Runs the team suite's Node clients (tests/team/node/): installs them once (npm ci into the
// build tree), runs one script and parses the one JSON line it prints.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace kg::test {

// node <script> args... in $KG_TEAM_NODE_DIR; fails the test unless it ran (exit 0) and printed
// a JSON object as its last line.
rapidjson::Document run_team_client(const std::string& script, const std::vector<std::string>& args,
                                    const std::map<std::string, std::string>& env = {});

// npx --no-install <args...> in $KG_TEAM_NODE_DIR (the Inspector CLI), with a private HOME;
// returns exit code and output.
struct NpxOutcome {
  int exit_code = -1;
  std::string output;
};
NpxOutcome run_team_npx(const std::vector<std::string>& args);

// A string member of a JSON object ("" when absent or not a string).
std::string text_at(const rapidjson::Value& object, const char* name);

}  // namespace kg::test
