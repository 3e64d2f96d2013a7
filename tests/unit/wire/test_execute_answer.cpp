// POST /execute's answer: what the sandbox server writes, the daemon reads back equal; output
// that is not UTF-8 arrives repaired; an answer from a runtime that leaves members out reads as
// defaults; a file whose base64 is broken is that file's error, not the call's.
#include <doctest/doctest.h>

#include <string>

#include "malformed_message.hpp"
#include "sandbox_api/execute_answer.hpp"

using namespace kg::wire::sandbox_api;
using kg::wire::MalformedMessage;

namespace {

ExecuteAnswer full_answer() {
  ExecuteAnswer answer;
  answer.stdout_text = "hello\n";
  answer.stderr_text = "warning: ünïcode\n\n... [12 bytes discarded] ...\nend";
  answer.exit_code = 137;
  answer.signal = 9;
  answer.timed_out = true;
  answer.cpu_limit_exceeded = true;
  answer.stdout_truncated = false;
  answer.stderr_truncated = true;
  answer.stderr_discarded_bytes = 12;
  answer.duration_ms = 4321;
  answer.file = FileAfterCommand{".kode-gopher/result.json", true,
                                 std::string("{\"kind\":\"ok\"}\0\xff binary", 22), ""};
  return answer;
}

std::string refusal_of(const std::string& text) {
  try {
    (void)decode_execute_answer(text);
  } catch (const MalformedMessage& e) {
    return e.what();
  }
  FAIL("accepted: " << text);
  return {};
}

}  // namespace

TEST_CASE("an /execute answer survives encode and decode unchanged") {
  const ExecuteAnswer answer = full_answer();
  CHECK(decode_execute_answer(encode_execute_answer(answer)) == answer);

  ExecuteAnswer no_file;
  no_file.stdout_text = "x";
  CHECK(decode_execute_answer(encode_execute_answer(no_file)) == no_file);

  ExecuteAnswer missing_file;
  missing_file.file = FileAfterCommand{"gone.json", false, "", ""};
  CHECK(decode_execute_answer(encode_execute_answer(missing_file)) == missing_file);

  ExecuteAnswer unreadable_file;
  unreadable_file.file = FileAfterCommand{"big.json", true, "", "larger than 5 bytes"};
  CHECK(decode_execute_answer(encode_execute_answer(unreadable_file)) == unreadable_file);
}

TEST_CASE("an /execute answer is written in the contract's member order") {
  ExecuteAnswer answer;
  answer.stdout_text = "a";
  answer.file = FileAfterCommand{"r", true, "hi", ""};
  CHECK(encode_execute_answer(answer) ==
        R"({"stdout":"a","stderr":"","exit_code":0,"signal":0,"timed_out":false,)"
        R"("cpu_limit_exceeded":false,"stdout_truncated":false,"stderr_truncated":false,)"
        R"("stdout_discarded_bytes":0,"stderr_discarded_bytes":0,"duration_ms":0,"file":{"path":"r","exists":true,"content_base64":"aGk="}})");
}

TEST_CASE("output that is not UTF-8 is repaired on the way out") {
  ExecuteAnswer answer;
  answer.stdout_text = "a\xff" "b";
  CHECK(decode_execute_answer(encode_execute_answer(answer)).stdout_text == "a\xEF\xBF\xBD" "b");
}

TEST_CASE("an /execute answer from another runtime reads leniently") {
  const ExecuteAnswer answer =
      decode_execute_answer(R"({"stdout":5,"exit_code":"1","timed_out":"yes","file":[]})");
  CHECK(answer == ExecuteAnswer{});
  const ExecuteAnswer broken = decode_execute_answer(
      R"({"exit_code":3,"file":{"path":"r","exists":true,"content_base64":"!!not base64!!"}})");
  CHECK(broken.exit_code == 3);
  REQUIRE(broken.file);
  CHECK(broken.file->exists);
  CHECK(broken.file->error.rfind("the sandbox sent it as invalid base64: ", 0) == 0);
}

TEST_CASE("an /execute answer that is not a JSON object is refused") {
  CHECK(refusal_of("[]") == "the sandbox's answer is not a JSON object");
  CHECK(refusal_of("{\"stdout\":").rfind("the sandbox's answer is not valid JSON", 0) == 0);
  CHECK(refusal_of(std::string(200, '[') + std::string(200, ']'))
            .rfind("the sandbox's answer nests deeper than 128 levels", 0) == 0);
}
