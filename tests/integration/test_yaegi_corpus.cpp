// The differential corpus (tests/yaegi-corpus, README there) through the real daemon: every case
// runs with runtime compiled-go and with runtime auto in the same session. Where auto picks
// Yaegi, stdout, exit code and the result must be identical to the compiled run (a panic's stack
// text aside); auto's choice must be the one the case's case.json records; and a clear majority
// of the corpus must go to Yaegi (an auto that always compiles is not done).
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;
namespace fs = std::filesystem;

namespace {

struct CorpusCase {
  std::string name;
  std::map<std::string, std::string> files;  // path -> source, as a caller sends them
  std::string expected_auto;                 // "yaegi" | "compiled" | "rerun"
  bool needs_env = false;                    // the daemon API has no per-call environment
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<CorpusCase> load_corpus(const fs::path& root) {
  std::vector<CorpusCase> cases;
  for (const auto& entry : fs::directory_iterator(root / "cases")) {
    if (!entry.is_directory()) continue;
    CorpusCase c;
    c.name = entry.path().filename().string();
    for (const auto& file : fs::recursive_directory_iterator(entry.path())) {
      if (!file.is_regular_file()) continue;
      const std::string path = fs::relative(file.path(), entry.path()).generic_string();
      if (path == "case.json") continue;
      c.files[path] = read_text(file.path());
    }
    kg::json::ReadJson expectations_read = kg::test::read_test_json(read_text(entry.path() / "case.json"));
    rapidjson::Document& expectations = expectations_read.document;
    REQUIRE_MESSAGE(expectations.IsObject(), c.name << "/case.json is not a JSON object");
    c.expected_auto = json_string(expectations, "auto");
    c.needs_env = expectations.HasMember("env");
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

std::string request(const CorpusCase& c, const char* runtime) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("runtime");
  w.String(runtime);
  w.Key("files");
  w.StartObject();
  for (const auto& [path, source] : c.files) {
    w.Key(path.c_str());
    w.String(source.c_str(), static_cast<rapidjson::SizeType>(source.size()));
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

// The result object without a panic's stack (a compiled stack and an interpreted one differ).
std::string comparable_result(rapidjson::Document& answer) {
  if (!answer.HasMember("result")) return "(none)";
  auto& result = answer["result"];
  if (result.IsObject() && result.HasMember("kind") && json_string(result, "kind") == "panic") {
    result.RemoveMember("stack");
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  result.Accept(w);
  return buffer.GetString();
}

}  // namespace

TEST_CASE("differential corpus: auto matches compiled Go wherever it picks Yaegi") {
  const char* runner = std::getenv("KG_YAEGI_RUNNER");
  REQUIRE_MESSAGE((runner != nullptr && *runner != '\0'), "this build has no Yaegi runner");
  const auto cases = load_corpus(kg::test::required_env("KG_YAEGI_CORPUS"));
  REQUIRE_MESSAGE(!cases.empty(), "tests/yaegi-corpus/cases holds no case");

  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  int to_yaegi = 0, compared = 0, skipped = 0, fell_back_count = 0;
  for (const auto& c : cases) {
    CAPTURE(c.name);
    if (c.needs_env) {
      ++skipped;  // its environment cannot be sent through the daemon API
      continue;
    }
    const std::string execute = "/v1/sessions/" + session + "/execute";
    // auto first: once compiled-go has built a program, auto takes its binary-cache hit
    // (docs/runtimes.md), and the case would no longer say what auto picks for it.
    const auto auto_answer = daemon.post(execute, request(c, "auto"));
    const auto compiled_answer = daemon.post(execute, request(c, "compiled-go"));
    REQUIRE(compiled_answer.status == 200);
    REQUIRE(auto_answer.status == 200);
    auto compiled = daemon.json(compiled_answer);
    auto chosen = daemon.json(auto_answer);
    const std::string runtime = json_string(chosen, "runtime");
    const std::string reason = json_string(chosen, "runtime_reason");
    CAPTURE(reason);
    CHECK_FALSE(reason.empty());
    // case.json's "auto" is the runner's --auto decision; "rerun": it accepted the program, which
    // then hit a limitation while running (the decode guard, or the interpreter's own failure),
    // and compiled-go ran it (and says so).
    const bool fell_back =
        runtime == "compiled-go" && reason.starts_with("yaegi could not run it");
    if (c.expected_auto == "yaegi") {
      CHECK(runtime == "yaegi");
    } else if (c.expected_auto == "rerun") {
      CHECK(fell_back);
      if (fell_back) ++fell_back_count;
    } else {
      CHECK(runtime == "compiled-go");
    }
    if (runtime != "yaegi") continue;
    ++to_yaegi;
    ++compared;
    CHECK(json_string(chosen, "stdout") == json_string(compiled, "stdout"));
    CHECK(chosen["exit_code"].GetInt() == compiled["exit_code"].GetInt());
    CHECK(json_string(chosen, "status") == json_string(compiled, "status"));
    CHECK(comparable_result(chosen) == comparable_result(compiled));
  }
  const int considered = static_cast<int>(cases.size()) - skipped;
  MESSAGE(to_yaegi << " of " << considered << " corpus cases went to Yaegi, each compared with "
                   "compiled Go above; " << fell_back_count << " more were accepted, hit an "
                   "interpreter limitation and ran compiled (" << skipped
                   << " need an environment and were left out)");
  // A clear majority: more than three in five.
  CHECK(to_yaegi * 5 > considered * 3);
  CHECK(compared == to_yaegi);
}
