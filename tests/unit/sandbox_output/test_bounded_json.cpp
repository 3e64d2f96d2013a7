// clean_json and parse_bounded: JSON from a sandbox read without recursion, refused past the
// depth bound, its strings and keys repaired into UTF-8.
#include <doctest/doctest.h>
#include <rapidjson/error/en.h>

#include <chrono>
#include <string>

#include "bounded_json.hpp"
#include "utf8_text.hpp"

using namespace kg::sandbox_output;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// {"kind":"ok","value":[[...]]}: the object is level 1, so `depth` levels in all.
std::string deep_result(std::size_t depth) {
  return R"({"kind":"ok","value":)" + nested_arrays(depth - 1) + "}";
}

}  // namespace

TEST_CASE("clean_json writes valid JSON again, compact, numbers as they were written") {
  const auto clean = clean_json(
      " {\"kind\": \"ok\",\n \"value\": {\"n\": [1, -0, 2.50, 1e3, 18446744073709551615, "
      "123456789012345678901234567890, 0.1], \"s\": \"a\\u0000b \\\"q\\\" \\u00e9\", "
      "\"t\": true, \"f\": false, \"z\": null, \"e\": {}, \"a\": []}}\n");
  REQUIRE_FALSE(clean.refused);
  CHECK(clean.repaired_strings == 0);
  CHECK(clean.text ==
        "{\"kind\":\"ok\",\"value\":{\"n\":[1,-0,2.50,1e3,18446744073709551615,"
        "123456789012345678901234567890,0.1],\"s\":\"a\\u0000b \\\"q\\\" \xC3\xA9\","
        "\"t\":true,\"f\":false,\"z\":null,\"e\":{},\"a\":[]}}");
  // What it wrote is a fixed point.
  const auto again = clean_json(clean.text);
  REQUIRE_FALSE(again.refused);
  CHECK(again.text == clean.text);
}

TEST_CASE("clean_json keeps the depth bound itself and refuses one level more") {
  const auto at_bound = clean_json(deep_result(kMaxResultDepth));
  REQUIRE_FALSE(at_bound.refused);
  CHECK(at_bound.text == deep_result(kMaxResultDepth));

  const auto deeper = clean_json(deep_result(kMaxResultDepth + 1));
  REQUIRE(deeper.refused);
  CHECK(deeper.refused->too_deep);
  CHECK(deeper.text.empty());
  // The 129th '[' is byte 21 + 127 of the text.
  CHECK(deeper.refused->describe() == "nests deeper than 128 levels (at offset 148)");

  CHECK(clean_json("[[[1]]]", 3).text == "[[[1]]]");
  CHECK(clean_json("[[[1]]]", 2).refused->describe() == "nests deeper than 2 levels (at offset 2)");
  CHECK(clean_json(R"({"a":{"b":{}}})", 2).refused->too_deep);
}

TEST_CASE("120 000 nested arrays (the result.json that crashed the daemon) are refused quickly") {
  const auto started = std::chrono::steady_clock::now();
  const std::string hostile = deep_result(120'000);
  CHECK(hostile.size() < 256 * 1024);
  const auto clean = clean_json(hostile);
  REQUIRE(clean.refused);
  CHECK(clean.refused->too_deep);
  const auto parsed = parse_bounded(hostile);
  REQUIRE(parsed.refused);
  CHECK(parsed.refused->too_deep);
  CHECK(parsed.document.IsNull());
  // Deeper still, and not closed: refused at the bound, never read to the end.
  CHECK(clean_json(std::string(10'000'000, '[')).refused->too_deep);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}

TEST_CASE("clean_json refuses what is not one JSON value, with RapidJSON's reason and offset") {
  CHECK(clean_json("{\"kind\":").refused->describe() ==
        "is not valid JSON (Invalid value. at offset 8)");
  CHECK(clean_json("").refused->describe() == "is not valid JSON (The document is empty. at offset 0)");
  CHECK(clean_json("[1] [2]").refused->describe() ==
        "is not valid JSON (The document root must not be followed by other values. at offset 4)");
  CHECK(clean_json("[NaN]").refused);
  CHECK(clean_json("[1e99999]").refused);
  CHECK(clean_json("[\"\xff\" \xff]").refused);  // a stray byte outside a string
  CHECK(clean_json("[\"\\ud800\"]").refused);    // a high surrogate escape without its pair
  CHECK_FALSE(clean_json("[1]").refused);
}

TEST_CASE("strings and keys that are not UTF-8 are repaired byte by byte and counted") {
  const std::string hostile =
      "{\"kind\":\"ok\",\"value\":{"
      "\"k\xff\xfe\":\"raw \xff\xfe\","
      "\"overlong\":\"\xc0\x80\","
      "\"surrogate\":\"\xed\xa0\x80\","
      "\"escaped\":\"\\udc00\","
      "\"above\":\"\xf4\x90\x80\x80\","
      "\"cut\":\"\xe2\x82\","
      "\"fine\":\"\xc3\xa9 \xe2\x9c\x93\"}}";
  const auto clean = clean_json(hostile);
  REQUIRE_FALSE(clean.refused);
  CHECK(clean.repaired_strings == 7);
  CHECK(is_valid_utf8(clean.text));
  CHECK(clean.text == "{\"kind\":\"ok\",\"value\":{"
                      "\"k" + kFffd + kFffd + "\":\"raw " + kFffd + kFffd + "\","
                      "\"overlong\":\"" + kFffd + kFffd + "\","
                      "\"surrogate\":\"" + kFffd + kFffd + kFffd + "\","
                      "\"escaped\":\"" + kFffd + kFffd + kFffd + "\","
                      "\"above\":\"" + kFffd + kFffd + kFffd + kFffd + "\","
                      "\"cut\":\"" + kFffd + kFffd + "\","
                      "\"fine\":\"\xc3\xa9 \xe2\x9c\x93\"}}");
  // A strict parser takes what clean_json wrote.
  rapidjson::Document strict;
  strict.Parse<rapidjson::kParseValidateEncodingFlag>(clean.text.c_str(), clean.text.size());
  CHECK_FALSE(strict.HasParseError());

  const auto parsed = parse_bounded(hostile);
  REQUIRE_FALSE(parsed.refused);
  CHECK(parsed.repaired_strings == 7);
  const auto& value = parsed.document["value"];
  CHECK(std::string(value["overlong"].GetString()) == kFffd + kFffd);
  CHECK(value.HasMember(("k" + kFffd + kFffd).c_str()));
}

TEST_CASE("parse_bounded gives a DOM no deeper than the bound") {
  const auto parsed = parse_bounded(deep_result(kMaxResultDepth));
  REQUIRE_FALSE(parsed.refused);
  CHECK(parsed.document["kind"] == "ok");
  CHECK(parsed.document["value"].IsArray());

  const auto deeper = parse_bounded(deep_result(kMaxResultDepth + 1));
  REQUIRE(deeper.refused);
  CHECK(deeper.refused->too_deep);

  const auto broken = parse_bounded("{\"a\":[1,}");
  REQUIRE(broken.refused);
  CHECK_FALSE(broken.refused->too_deep);
  CHECK(broken.refused->describe() == "is not valid JSON (Invalid value. at offset 8)");
  CHECK(parse_bounded("{\"n\":2.5}").document["n"].GetDouble() == 2.5);
}
