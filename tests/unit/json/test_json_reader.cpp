// lib/json's one reader: JSON from outside read without recursion, refused past its size and
// depth bounds, its strings and keys refused or repaired into UTF-8, every refusal with its line
// and column.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "json_reader.hpp"
#include "utf8_text.hpp"

using namespace kg::json;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// {"kind":"ok","value":[[...]]}: the object is level 1, so `depth` levels in all.
std::string deep_result(std::size_t depth) {
  return R"({"kind":"ok","value":)" + nested_arrays(depth - 1) + "}";
}

constexpr ReadLimits limits(std::size_t depth, InvalidUtf8 utf8 = InvalidUtf8::repair) {
  return {1 << 20, depth, utf8};
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

TEST_CASE("the depth bound holds exactly, with the position where reading stopped") {
  const auto at_bound = clean_json(deep_result(kMaxResultDepth));
  REQUIRE_FALSE(at_bound.refused);
  CHECK(at_bound.text == deep_result(kMaxResultDepth));

  const auto deeper = clean_json(deep_result(kMaxResultDepth + 1));
  REQUIRE(deeper.refused);
  CHECK(deeper.refused->kind == JsonRefusal::Kind::too_deep);
  CHECK(deeper.text.empty());
  // The 129th '[' is byte 21 + 127 of the text.
  CHECK(deeper.refused->describe() == "nests deeper than 128 levels (line 1, column 149)");

  CHECK(clean_json("[[[1]]]", limits(3)).text == "[[[1]]]");
  CHECK(clean_json("[[[1]]]", limits(2)).refused->describe() ==
        "nests deeper than 2 levels (line 1, column 3)");
  CHECK(clean_json("{\"a\":\n{\"b\":{}}}", limits(2)).refused->describe() ==
        "nests deeper than 2 levels (line 2, column 6)");
  CHECK(read_json(deep_result(kMaxResultDepth), kSandboxOutputLimits).document["kind"] == "ok");
  CHECK(read_json(deep_result(kMaxResultDepth + 1), kSandboxOutputLimits).document.IsNull());
}

TEST_CASE("the texts that crashed the daemon are refused, by every preset") {
  const std::vector<std::string> hostile = {
      deep_result(120'000),             // the result.json of round 1
      std::string(300 * 1024, '['),     // POST /oauth/register (round 3, item 1)
      nested_arrays(1'000'000),         // a forged runner event (round 3, item 2)
      std::string(10'000'000, '['),     // deeper still, never read to its end
  };
  for (const ReadLimits& preset : {kRequestLimits, kSandboxOutputLimits, kDaemonAnswerLimits,
                                   kUpstreamReplyLimits, kFileLimits}) {
    for (const auto& text : hostile) {
      const auto read = read_json(text, preset);
      REQUIRE(read.refused);
      CHECK(read.document.IsNull());
      CHECK((read.refused->kind == JsonRefusal::Kind::too_deep ||
             read.refused->kind == JsonRefusal::Kind::too_large));
      CHECK(clean_json(text, preset).refused);
    }
  }
}

TEST_CASE("a text over the size bound is refused before it is read") {
  const ReadLimits small{16, 8, InvalidUtf8::refuse};
  CHECK_FALSE(read_json("[1,2,3]", small).refused);
  const auto big = read_json("[1,2,3,4,5,6,7,8,9]", small);
  REQUIRE(big.refused);
  CHECK(big.refused->kind == JsonRefusal::Kind::too_large);
  CHECK(big.refused->describe() == "is larger than 16 bytes");
}

TEST_CASE("what is not one JSON value is refused with RapidJSON's reason, line and column") {
  CHECK(clean_json("{\"kind\":").refused->describe() ==
        "is not valid JSON: Invalid value. (line 1, column 9)");
  CHECK(clean_json("").refused->describe() ==
        "is not valid JSON: The document is empty. (line 1, column 1)");
  CHECK(clean_json("[1]\n [2]").refused->describe() ==
        "is not valid JSON: The document root must not be followed by other values. (line 2, "
        "column 2)");
  CHECK(clean_json("[NaN]").refused);
  CHECK(clean_json("[1e99999]").refused);
  CHECK(clean_json("[\"\xff\" \xff]").refused);  // a stray byte outside a string
  CHECK(clean_json("[\"\\ud800\"]").refused);    // a high surrogate escape without its pair
  CHECK_FALSE(clean_json("[1]").refused);
}

TEST_CASE("read_json_or_throw names what was read") {
  CHECK_THROWS_WITH_AS(read_json_or_throw("{\"a\":}", kUpstreamReplyLimits, "The token answer"),
                       "The token answer is not valid JSON: Invalid value. (line 1, column 6)",
                       JsonInputError);
  CHECK(read_json_or_throw("{\"a\":1}", kUpstreamReplyLimits, "x")["a"].GetInt() == 1);
}

TEST_CASE("under repair, strings and keys that are not UTF-8 are repaired byte by byte") {
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
  // A strict reader takes what clean_json wrote.
  CHECK_FALSE(read_json(clean.text, kUpstreamReplyLimits).refused);

  const auto parsed = read_json(hostile, kSandboxOutputLimits);
  REQUIRE_FALSE(parsed.refused);
  CHECK(parsed.repaired_strings == 7);
  const auto& value = parsed.document["value"];
  CHECK(std::string(value["overlong"].GetString()) == kFffd + kFffd);
  CHECK(value.HasMember(("k" + kFffd + kFffd).c_str()));
}

TEST_CASE("under refuse, a string that is not UTF-8 is refused where it is") {
  const ReadLimits strict = limits(8, InvalidUtf8::refuse);
  const auto raw = read_json("{\"a\":\n \"x\xff\"}", strict);
  REQUIRE(raw.refused);
  CHECK(raw.refused->kind == JsonRefusal::Kind::invalid_utf8);
  CHECK(raw.refused->line == 2);
  const auto key = read_json("{\"\xc0\x80\":1}", strict);
  REQUIRE(key.refused);
  CHECK(key.refused->kind == JsonRefusal::Kind::invalid_utf8);
  // RapidJSON decodes an escaped lone surrogate into invalid bytes even when validating.
  const auto escaped = read_json("[\"\\udc00\"]", strict);
  REQUIRE(escaped.refused);
  CHECK(escaped.refused->kind == JsonRefusal::Kind::lone_surrogate);
  CHECK(read_json("[\"\\ud83d\\ude00\"]", strict).document[0] == "\xF0\x9F\x98\x80");
}

TEST_CASE("read_json with an allocator leaves the values in it, to graft elsewhere") {
  rapidjson::Document target(rapidjson::kObjectType);
  auto read = read_json("{\"n\":[1,2]}", kRequestLimits, &target.GetAllocator());
  REQUIRE_FALSE(read.refused);
  rapidjson::Value value;
  value.Swap(read.document);
  target.AddMember("copied", value, target.GetAllocator());
  CHECK(target["copied"]["n"][1].GetInt() == 2);
  CHECK(read_json("{\"n\":2.5}", kFileLimits).document["n"].GetDouble() == 2.5);
}
