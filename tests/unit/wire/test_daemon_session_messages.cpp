// The daemon API's smaller session messages (docs/daemon-api.md): the open-session request, the
// cancel answer, a streamed progress line and the files listing, each encoded in the contract's
// bytes, decoded back equal, and refused naming what is out of shape.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "daemon_api/cancel_answer.hpp"
#include "daemon_api/execute_result.hpp"
#include "daemon_api/open_session_request.hpp"
#include "daemon_api/progress_line.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;
using kg::wire::MalformedMessage;

namespace {

rapidjson::Document parsed(const std::string& text) {
  kg::json::ReadJson read = kg::json::read_json(text, kg::json::kDaemonAnswerLimits);
  REQUIRE_FALSE(read.refused);
  return std::move(read.document);
}

}  // namespace

TEST_CASE("an open-session request survives encode and decode, empty members left out") {
  const OpenSessionRequest cli{"cli", ""};
  CHECK(encode_open_session_request(cli) == R"({"client":"cli"})");
  CHECK(decode_open_session_request(parsed(encode_open_session_request(cli))) == cli);
  const OpenSessionRequest both{"mcp", "yaegi"};
  CHECK(encode_open_session_request(both) == R"({"client":"mcp","runtime":"yaegi"})");
  CHECK(decode_open_session_request(parsed(encode_open_session_request(both))) == both);
  CHECK(decode_open_session_request(parsed(R"({"client": null})")) == OpenSessionRequest{});
}

TEST_CASE("an open-session request out of shape is refused in the daemon's bad_request words") {
  CHECK_THROWS_WITH_AS(decode_open_session_request(parsed(R"({"client": 1})")),
                       "\"client\" must be a string", MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_open_session_request(parsed(R"({"runtime": ["yaegi"]})")),
                       "\"runtime\" must be a string", MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_open_session_request(parsed("[]")),
                       "the request body must be a JSON object", MalformedMessage);
}

TEST_CASE("a cancel answer survives encode and decode unchanged") {
  CHECK(encode_cancel_answer({true}) == R"({"cancelled":true})");
  CHECK(encode_cancel_answer({false}) == R"({"cancelled":false})");
  CHECK(decode_cancel_answer(parsed(encode_cancel_answer({true}))) == CancelAnswer{true});
  CHECK(decode_cancel_answer(parsed(encode_cancel_answer({false}))) == CancelAnswer{false});
  CHECK_THROWS_WITH_AS(decode_cancel_answer(parsed(R"({"cancelled": "yes"})")),
                       "the daemon's cancel answer has \"cancelled\" that is not true or false",
                       MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_cancel_answer(parsed("true")),
                       "the daemon's cancel answer is not a JSON object", MalformedMessage);
}

TEST_CASE("a progress line survives encode and decode unchanged, in the contract's bytes") {
  const ProgressLine line{"build", "compile and link"};
  CHECK(encode_progress_line(line) ==
        R"({"progress":{"phase":"build","detail":"compile and link"}})");
  CHECK(decode_progress_line(parsed(encode_progress_line(line))) == line);
  CHECK(decode_progress_line(parsed(encode_progress_line({"setup", "auto: \xFF"}))).detail ==
        "auto: \xEF\xBF\xBD");
}

TEST_CASE("a progress line out of shape is refused, naming the member") {
  CHECK_THROWS_WITH_AS(decode_progress_line(parsed(R"({"progress": "build"})")),
                       "the daemon's progress line has \"progress\" that is not an object",
                       MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_progress_line(parsed(R"({"progress": {"phase": 2}})")),
                       "the daemon's progress line has \"progress.phase\" that is not a string",
                       MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_progress_line(parsed(R"({"result": {}})")),
                       "the daemon's progress line has no \"progress\" object", MalformedMessage);
}

TEST_CASE("a files listing survives encode and decode unchanged") {
  const std::vector<OutFile> files{
      {"chart.png", 2048, "image/png", "kode-gopher://sessions/s-1/calls/3/files/chart.png"},
      {"data/rows.csv", 10, "text/csv", ""}};
  CHECK(encode_files_listing(files) ==
        R"({"files":[{"name":"chart.png","size":2048,"media_type":"image/png",)"
        R"("uri":"kode-gopher://sessions/s-1/calls/3/files/chart.png"},)"
        R"({"name":"data/rows.csv","size":10,"media_type":"text/csv"}]})");
  CHECK(decode_out_files(parsed(encode_files_listing(files))) == files);
  CHECK(encode_files_listing({}) == R"({"files":[]})");
  CHECK_THROWS_WITH_AS(decode_out_files(parsed(R"({"files": [{"name": "a", "size": -1}]})")),
                       "the daemon's answer has \"files[0].size\" that is not a whole number",
                       MalformedMessage);
}
