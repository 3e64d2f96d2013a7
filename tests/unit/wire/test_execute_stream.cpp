// A streamed /execute answer's lines (docs/sandbox-api.md, "Streamed output"): each written by the
// sandbox reads back equal in the daemon, the exact bytes the docs show, output that is not UTF-8
// repaired, unknown kinds skipped, and the "stream" member of the request read strictly.
#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "malformed_message.hpp"
#include "sandbox_api/execute_request.hpp"
#include "sandbox_api/execute_stream.hpp"

using namespace kg::wire::sandbox_api;
using kg::wire::MalformedMessage;

TEST_CASE("stream lines: each kind round-trips, with the documented bytes") {
  const OutputPiece piece{true, "warning: x\n", false};
  CHECK(encode_output_piece(piece) == R"({"output":{"stream":"stderr","text":"warning: x\n"}})");
  CHECK(std::get<OutputPiece>(*decode_execute_stream_line(encode_output_piece(piece))) == piece);

  const OutputPiece cut{false, "xxxx", true};
  CHECK(encode_output_piece(cut) == R"({"output":{"stream":"stdout","text":"xxxx","cut":true}})");
  CHECK(std::get<OutputPiece>(*decode_execute_stream_line(encode_output_piece(cut))) == cut);

  const OutputDropped dropped{12345, DropReason::limit};
  CHECK(encode_output_dropped(dropped) == R"({"output_dropped":{"bytes":12345,"reason":"limit"}})");
  CHECK(std::get<OutputDropped>(*decode_execute_stream_line(encode_output_dropped(dropped))) ==
        dropped);
  const OutputDropped slow{7, DropReason::slow_reader};
  CHECK(std::get<OutputDropped>(*decode_execute_stream_line(encode_output_dropped(slow))) == slow);

  ExecuteAnswer answer;
  answer.stdout_text = "a\n";
  answer.exit_code = 3;
  answer.duration_ms = 12;
  const std::string result = encode_stream_result(answer);
  CHECK(result.starts_with(R"({"result":{"stdout":"a\n",)"));
  CHECK(std::get<ExecuteAnswer>(*decode_execute_stream_line(result)) == answer);

  CHECK(encode_stream_error("boom") == R"({"error":{"detail":"boom"}})");
  CHECK(std::get<StreamError>(*decode_execute_stream_line(encode_stream_error("boom"))).detail ==
        "boom");
}

TEST_CASE("stream lines: bytes that are not UTF-8 are repaired; unknown kinds are skipped") {
  const std::string line = encode_output_piece({false, "bad \xff byte\n", false});
  CHECK(line == "{\"output\":{\"stream\":\"stdout\",\"text\":\"bad \xef\xbf\xbd byte\\n\"}}");
  CHECK_FALSE(decode_execute_stream_line(R"({"heartbeat":{}})").has_value());
}

TEST_CASE("stream lines: malformed ones are refused with what is wrong") {
  const auto refusal = [](const std::string& text) -> std::string {
    try {
      (void)decode_execute_stream_line(text);
    } catch (const MalformedMessage& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(refusal("not json").starts_with("the sandbox's answer"));
  CHECK(refusal(R"({"output":{"stream":"stdin","text":"x"}})") ==
        "the sandbox's answer has a streamed line \"output\" of the unknown stream \"stdin\"");
  CHECK(refusal(R"({"output":{"stream":"stdout"}})") ==
        "the sandbox's answer has a streamed line \"output\" without a \"stream\" and a \"text\" "
        "string");
  CHECK(refusal(R"({"output_dropped":{"bytes":-1}})") ==
        "the sandbox's answer has a streamed line \"output_dropped\" without a \"bytes\" count");
}

TEST_CASE("the request's \"stream\" member round-trips and is read strictly") {
  ExecuteRequest request;
  request.command = "exec ./prog";
  request.stream = StreamRequest{4096, "runner[abc] "};
  const std::string body = encode_execute_request(request);
  CHECK(body.find(R"("stream":{"max_bytes":4096,"skip_prefix":"runner[abc] "})") !=
        std::string::npos);
  CHECK(decode_execute_request(body) == request);

  const auto refusal = [](const std::string& text) -> std::string {
    try {
      (void)decode_execute_request(text);
    } catch (const MalformedMessage& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(refusal(R"({"command":"ls","stream":{"max_bytes":-1}})") ==
        "\"stream\".\"max_bytes\" must be an integer from 0 to 67108864");
  CHECK(refusal(R"({"command":"ls","stream":{"lines":true}})") ==
        "\"stream\" has the unknown key \"lines\"; known: max_bytes, skip_prefix");
  CHECK(refusal(R"({"command":"ls","stream":true})").starts_with("\"stream\" must be an object"));
  CHECK(decode_execute_request(R"({"command":"ls","stream":{}})").stream ==
        StreamRequest{kDefaultStreamMaxBytes, ""});
}
