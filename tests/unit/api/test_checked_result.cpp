// The daemon's answers carry what sandboxes produced: whatever a runtime plugin hands back (a
// result nested 120 000 levels deep, bytes that are not UTF-8 in any string), the answer is valid
// JSON of valid UTF-8, written without recursion, with a warning for what had to change.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "api_errors.hpp"
#include "response_json.hpp"
#include "../../support/test_json.hpp"

namespace kg::api {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// Parses an answer as a strict client would: UTF-8 validated. Iterative, so that a deep answer
// fails the test instead of crashing it.
rapidjson::Document strictly(const std::string& answer) {
  kg::json::ReadJson doc_read = kg::test::read_test_json(answer);
  rapidjson::Document& doc = doc_read.document;
  INFO("answer: " << answer.substr(0, 400));
  REQUIRE_FALSE(doc_read.refused.has_value());
  REQUIRE(doc.IsObject());
  return std::move(doc);
}

std::vector<std::string> warnings_of(const rapidjson::Value& answer) {
  std::vector<std::string> warnings;
  if (!answer.HasMember("warnings")) return warnings;
  for (const auto& w : answer["warnings"].GetArray()) warnings.emplace_back(w.GetString());
  return warnings;
}

session::CallResult ok_call() {
  session::CallResult call;
  call.call_id = 1;
  call.session_id = "s-1";
  call.runtime = "compiled-go";
  call.result.phase = plugin::Phase::run;
  call.result.status = plugin::Status::ok;
  return call;
}

}  // namespace

TEST_CASE("a clean result is written as it came, with no warning") {
  auto call = ok_call();
  call.result.stdout_text = "h\xC3\xA9llo\n";
  call.result.result_json = R"({"kind":"ok","value":[1,2.50,"x"]})";
  const auto answer = strictly(call_result_json(call));
  CHECK(warnings_of(answer).empty());
  CHECK_FALSE(answer["is_error"].GetBool());
  CHECK(std::string(answer["stdout"].GetString()) == "h\xC3\xA9llo\n");
  CHECK(answer["result"]["value"][1].GetDouble() == 2.5);
  CHECK(call_result_json(call).find(R"("result":{"kind":"ok","value":[1,2.50,"x"]})") !=
        std::string::npos);
}

TEST_CASE("a result 120 000 levels deep is dropped with a warning, not a stack overflow") {
  auto call = ok_call();
  call.result.result_json = R"({"kind":"ok","value":)" + std::string(120'000, '[') +
                            std::string(120'000, ']') + "}";
  const auto answer = strictly(call_result_json(call));
  CHECK_FALSE(answer.HasMember("result"));
  CHECK(warnings_of(answer) == std::vector<std::string>{
                                   "the runtime's result nests deeper than 128 levels (line 1, "
                                   "column 149); it was dropped"});
  CHECK(answer["is_error"].GetBool());
  CHECK(std::string(answer["status"].GetString()) == "ok");
  CHECK(result_is_error(call.result));  // also without the check, and without recursion
}

TEST_CASE("a result that is not JSON is dropped with a warning") {
  auto call = ok_call();
  call.result.result_json = R"({"kind":)";
  const auto answer = strictly(call_result_json(call));
  CHECK_FALSE(answer.HasMember("result"));
  CHECK(warnings_of(answer) ==
        std::vector<std::string>{"the runtime's result is not valid JSON: Invalid value. (line "
                                 "1, column 9); it was dropped"});
}

TEST_CASE("every string from the sandbox comes out valid UTF-8, each repair with a warning") {
  auto call = ok_call();
  call.result.stdout_text = "out \xFF\xFE";
  call.result.stderr_text = "err \xC0\x80";
  call.result.diagnostics.push_back({"m\xED\xA0\x80.go", 1, 2, "bad \xE2\x82"});
  call.result.warnings.push_back("moved \xF4\x90\x80\x80");
  call.result.result_json = "{\"kind\":\"error\",\"message\":\"m \xFF\",\"k\xFF\":1}";
  const auto answer = strictly(call_result_json(call));
  CHECK(std::string(answer["stdout"].GetString()) == "out " + kFffd + kFffd);
  CHECK(std::string(answer["stderr"].GetString()) == "err " + kFffd + kFffd);
  CHECK(std::string(answer["diagnostics"][0]["file"].GetString()) == "m" + kFffd + kFffd + kFffd + ".go");
  CHECK(std::string(answer["diagnostics"][0]["message"].GetString()) == "bad " + kFffd + kFffd);
  CHECK(std::string(answer["result"]["message"].GetString()) == "m " + kFffd);
  CHECK(answer["result"].HasMember(("k" + kFffd).c_str()));
  const std::string replaced = "; each invalid byte was replaced with U+FFFD";
  CHECK(warnings_of(answer) ==
        std::vector<std::string>{"moved " + kFffd + kFffd + kFffd + kFffd,
                                 "stdout was not valid UTF-8" + replaced,
                                 "stderr was not valid UTF-8" + replaced,
                                 "compiler diagnostics were not valid UTF-8" + replaced,
                                 "warnings were not valid UTF-8" + replaced,
                                 "the runtime's result had 2 string(s) or key(s) that were not "
                                 "valid UTF-8" + replaced});
}

TEST_CASE("an error answer quoting a sandbox is valid UTF-8") {
  const auto answer = strictly(error_json({400, "sandbox_error", "the sandbox said \xFF\xFE"}));
  CHECK(std::string(answer["error"]["message"].GetString()) == "the sandbox said " + kFffd + kFffd);
}

}  // namespace kg::api
