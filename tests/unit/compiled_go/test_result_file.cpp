#include <doctest/doctest.h>

#include "result_file.hpp"

using kg::compiled_go::check_result_file;

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
  CHECK(warnings[0] == "result.json is not valid JSON (Invalid value. at offset 8); it was ignored");
  CHECK(warnings[1] == "result.json is not an object with a \"kind\"; it was ignored");
  CHECK(warnings[2] ==
        "result.json has unknown kind \"great\" (expected ok, error, panic or marshal_error); it was ignored");
}
