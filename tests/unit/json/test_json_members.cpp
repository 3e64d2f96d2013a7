// lib/json's member getters: "missing" for anything that is not the member asked for, and a
// string's real length kept.
#include <doctest/doctest.h>

#include <string>

#include "json_members.hpp"
#include "json_reader.hpp"

using namespace kg::json;

TEST_CASE("member getters answer missing for a non-object, an absent member or another type") {
  const ReadJson read = read_json(R"({"s":"a\u0000b","n":7,"big":1e300,"o":{"x":"y"},"z":null})",
                                  kRequestLimits);
  REQUIRE_FALSE(read.refused);
  const rapidjson::Value& doc = read.document;

  CHECK(string_member(doc, "s") == std::string("a\0b", 3));
  CHECK(string_view_member(doc, "s")->size() == 3);
  CHECK(optional_string_member(doc, "s") == std::string("a\0b", 3));
  CHECK(string_member(doc, "n").empty());
  CHECK_FALSE(optional_string_member(doc, "n"));
  CHECK_FALSE(optional_string_member(doc, "absent"));
  CHECK_FALSE(optional_string_member(doc["o"]["x"], "x"));  // a string is not an object

  CHECK(int64_member(doc, "n") == 7);
  CHECK_FALSE(int64_member(doc, "big"));
  CHECK_FALSE(int64_member(doc, "s"));

  CHECK(find_member(doc, "z") != nullptr);
  CHECK(find_member(doc, "z")->IsNull());
  CHECK(find_member(static_cast<const rapidjson::Value*>(nullptr), "z") == nullptr);
  CHECK(string_member(*find_member(doc, "o"), "x") == "y");
}
