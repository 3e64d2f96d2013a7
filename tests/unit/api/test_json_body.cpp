// Request bodies: nesting depth, UTF-8, syntax errors with their position; and the one mapping
// from errors to HTTP status and code.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "api_errors.hpp"
#include "json_body.hpp"
#include "session_errors.hpp"

namespace kg::api {
namespace {

std::string nested_arrays(std::size_t depth) {
  // {"a": [[...]]}: the object is level 1, so `depth` levels in all.
  return "{\"a\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
}

std::string refusal(std::string_view body) {
  try {
    parse_json_object(body);
  } catch (const BadRequestError& e) {
    return e.what();
  }
  FAIL("the body was accepted: " << body.substr(0, 80));
  return {};
}

TEST_CASE("a JSON object is parsed, whitespace around it is fine") {
  const auto doc = parse_json_object(" {\"code\": \"package main\", \"n\": [1, 2.5, true, null]}\n");
  CHECK(std::string(doc["code"].GetString()) == "package main");
  CHECK(doc["n"].Size() == 4);
}

TEST_CASE("nesting is capped at 64 levels") {
  CHECK(parse_json_object(nested_arrays(64)).IsObject());
  CHECK(refusal(nested_arrays(65)) ==
        "JSON nested deeper than 64 levels at line 1, column 69; flatten the request");
  CHECK(refusal("{\"a\":\n" + std::string(100, '[')).starts_with(
        "JSON nested deeper than 64 levels at line 2, column "));
}

TEST_CASE("a body nested a million levels deep is refused at once, without a stack overflow") {
  const auto started = std::chrono::steady_clock::now();
  CHECK(refusal(std::string(1'000'000, '[')).starts_with("JSON nested deeper than 64 levels"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
}

TEST_CASE("invalid UTF-8 is refused with its position") {
  CHECK(refusal("{\"code\": \"caf\xe9\"}") ==
        "invalid UTF-8 in a JSON string at line 1, column 14; the request body must be UTF-8 "
        "(escape other text as \\uXXXX)");
  CHECK(refusal("{\"\xff\": 1}").starts_with("invalid UTF-8 in a JSON string at line 1, column "));
  // Overlong encodings and lone surrogates are not UTF-8 either.
  CHECK(refusal("{\"a\": \"\xc0\xaf\"}").starts_with("invalid UTF-8"));
  CHECK(refusal("{\"a\": \"\xed\xa0\x80\"}").starts_with("invalid UTF-8"));
  // Escaped, any character is fine.
  CHECK(std::string(parse_json_object("{\"a\": \"caf\\u00e9\"}")["a"].GetString()) == "caf\xc3\xa9");
}

TEST_CASE("syntax errors name line, column and RapidJSON's reason") {
  CHECK(refusal("{\"a\": 1,\n \"b\" 2}") ==
        "invalid JSON at line 2, column 6: Missing a colon after a name of object member.");
  CHECK(refusal("{} {}") ==
        "invalid JSON at line 1, column 4: The document root must not be followed by other values.");
  CHECK(refusal("") == "invalid JSON at line 1, column 1: The document is empty.");
  CHECK(refusal("[1]") == "the request body must be a JSON object");
}

TEST_CASE("each error maps to one HTTP status and code") {
  auto mapped = [](auto error) { return map_exception(std::make_exception_ptr(error)); };
  const auto bad = mapped(BadRequestError("JSON nested deeper than 64 levels"));
  CHECK(bad.status == 400);
  CHECK(bad.code == "bad_request");
  CHECK(bad.message == "JSON nested deeper than 64 levels");
  CHECK(mapped(PayloadTooLargeError("big")).status == 413);
  CHECK(mapped(PayloadTooLargeError("big")).code == "payload_too_large");
  CHECK(mapped(session::QueueFullError("full")).status == 503);
  CHECK(mapped(session::QueueFullError("full")).code == "queue_full");
  CHECK(mapped(session::ShuttingDownError("bye")).status == 503);
  CHECK(mapped(session::ShuttingDownError("bye")).code == "shutting_down");
  CHECK(mapped(session::CancelledError("stop")).status == 409);
  CHECK(mapped(session::CancelledError("stop")).code == "cancelled");
}

}  // namespace
}  // namespace kg::api
