// The daemon API's error body (every non-2xx answer, and a failed stream's last line;
// docs/daemon-api.md, "Errors"): what the daemon writes comes back equal through the CLI's
// reading, and anything else is refused so the CLI can quote it instead.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/error_body.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;

namespace {

ErrorBody decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return decode_error_body(read.document);
}

}  // namespace

TEST_CASE("an error body survives encode and decode unchanged, in the contract's bytes") {
  const ErrorBody error{"invalid_input", "file path \"../x.go\" must stay inside the program"};
  CHECK(encode_error_body(error) ==
        R"({"error":{"code":"invalid_input","message":"file path \"../x.go\" must stay inside the program"}})");
  CHECK(decode_text(encode_error_body(error)) == error);

  // Streamed cancellation: the message may be empty, and both members are still written.
  const ErrorBody cancelled{"cancelled", ""};
  CHECK(encode_error_body(cancelled) == R"({"error":{"code":"cancelled","message":""}})");
  CHECK(decode_text(encode_error_body(cancelled)) == cancelled);
}

TEST_CASE("an error message that is not UTF-8 is sent as U+FFFD") {
  CHECK(encode_error_body({"sandbox_error", "the sandbox said \xFF\xFE"}) ==
        "{\"error\":{\"code\":\"sandbox_error\",\"message\":\"the sandbox said "
        "\xEF\xBF\xBD\xEF\xBF\xBD\"}}");
}

TEST_CASE("a body that is not the daemon's error is refused, saying what is missing") {
  CHECK_THROWS_WITH_AS(decode_text(R"("Bad Gateway")"),
                       "the daemon's error answer is not a JSON object", kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"detail": "not here"})"),
                       "the daemon's error answer has no \"error\" object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"error": "not_found"})"),
                       "the daemon's error answer has \"error\" that is not an object",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"error": {"message": "gone"}})"),
                       "the daemon's error answer has no \"error.code\" string",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"error": {"code": "not_found", "message": null}})"),
                       "the daemon's error answer has no \"error.message\" string",
                       kg::wire::MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_text(R"({"error": {"code": 404, "message": "gone"}})"),
                       "the daemon's error answer has \"error.code\" that is not a string",
                       kg::wire::MalformedMessage);
}
