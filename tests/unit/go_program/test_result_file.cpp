#include <doctest/doctest.h>

#include "result_file.hpp"

using kg::go_program::check_result_file;

TEST_CASE("result.json: every valid kind is kept") {
  for (const char* kind : {"ok", "error", "panic", "marshal_error"}) {
    std::vector<std::string> warnings;
    const std::string text = std::string(R"({"kind":")") + kind + R"(","value":[1,2]})";
    const auto checked = check_result_file(text, warnings);
    CHECK(checked.kind == kind);
    REQUIRE(checked.json);
    CHECK(*checked.json == text);
    CHECK(warnings.empty());
  }
}

TEST_CASE("result.json: absent is no result and no warning") {
  std::vector<std::string> warnings;
  CHECK_FALSE(check_result_file(std::nullopt, warnings).json);
  CHECK(warnings.empty());
}

TEST_CASE("result.json: invalid content becomes a warning, never a silent drop") {
  std::vector<std::string> warnings;
  CHECK_FALSE(check_result_file(std::string("{\"kind\":"), warnings).json);
  CHECK_FALSE(check_result_file(std::string("[1,2]"), warnings).json);
  CHECK_FALSE(check_result_file(std::string(R"({"kind":"great"})"), warnings).json);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0] == "result.json is not valid JSON: Invalid value. (line 1, column 9); it was ignored");
  CHECK(warnings[1] == "result.json is not an object with a \"kind\"; it was ignored");
  CHECK(warnings[2] ==
        "result.json has unknown kind \"great\" (expected ok, error, panic or marshal_error); it was ignored");
}

TEST_CASE("result.json nested deeper than 128 levels becomes a warning, without a stack overflow") {
  // The ~240 KB result.json of 120 000 nested arrays that once crashed the daemon.
  const std::string deep = R"({"kind":"ok","value":)" + std::string(120'000, '[') +
                           std::string(120'000, ']') + "}";
  std::vector<std::string> warnings;
  const auto checked = check_result_file(deep, warnings);
  CHECK_FALSE(checked.json);
  CHECK(checked.kind.empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "result.json nests deeper than 128 levels (line 1, column 149); it was ignored");

  // 128 levels in all is still a result.
  warnings.clear();
  const std::string at_bound =
      R"({"kind":"ok","value":)" + std::string(127, '[') + std::string(127, ']') + "}";
  CHECK(check_result_file(at_bound, warnings).json == at_bound);
  CHECK(warnings.empty());
}

TEST_CASE("result.json strings and keys that are not UTF-8 are repaired, with a warning") {
  const std::string fffd = "\xEF\xBF\xBD";
  std::vector<std::string> warnings;
  const auto checked = check_result_file(
      std::string("{\"kind\":\"panic\",\"message\":\"bad \xff\xfe\",\"stack\":\"\xc0\x80\","
                  "\"value\":{\"k\xed\xa0\x80\":[\"\xe2\x82\",\"ok \xc3\xa9\"]}}"),
      warnings);
  CHECK(checked.kind == "panic");
  REQUIRE(checked.json);
  CHECK(*checked.json == "{\"kind\":\"panic\",\"message\":\"bad " + fffd + fffd +
                             "\",\"stack\":\"" + fffd + fffd + "\",\"value\":{\"k" + fffd + fffd +
                             fffd + "\":[\"" + fffd + fffd + "\",\"ok \xc3\xa9\"]}}");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "result.json had 4 string(s) or key(s) that were not valid UTF-8; each "
                       "invalid byte was replaced with U+FFFD");
}

TEST_CASE("result.json is passed on compact, its numbers exactly as written") {
  std::vector<std::string> warnings;
  const auto checked = check_result_file(
      std::string("{ \"kind\" : \"ok\",\n  \"value\": [18446744073709551616, 1.10, 1e3] }\n"),
      warnings);
  CHECK(checked.json == std::string(R"({"kind":"ok","value":[18446744073709551616,1.10,1e3]})"));
  CHECK(warnings.empty());
}

TEST_CASE("an unknown kind is quoted short, cut between characters") {
  std::vector<std::string> warnings;
  // 63 bytes of 'x', then a 2-byte character across the 64-byte cut.
  const std::string kind = std::string(63, 'x') + "\xC3\xA9" + std::string(100, 'y');
  CHECK_FALSE(check_result_file("{\"kind\":\"" + kind + "\"}", warnings).json);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "result.json has unknown kind \"" + std::string(63, 'x') +
                           "…\" (expected ok, error, panic or marshal_error); it was ignored");
}
