// The sandbox API's other messages: readiness, upload, upload-tar, reset, list, exists and the
// error answer, each encoded in the contract's shape and decoded back equal.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "malformed_message.hpp"
#include "sandbox_api/error_answer.hpp"
#include "sandbox_api/file_answers.hpp"
#include "sandbox_api/workdir_answers.hpp"

using namespace kg::wire::sandbox_api;
using kg::wire::MalformedMessage;

TEST_CASE("the workdir routes' answers survive encode and decode unchanged") {
  const StatusAnswer status{"ok", "kode-gopher-sandbox", "1.2.3", "/app"};
  CHECK(encode_status_answer(status) ==
        R"({"status":"ok","server":"kode-gopher-sandbox","version":"1.2.3","workdir":"/app"})");
  CHECK(decode_status_answer(encode_status_answer(status)) == status);
  const UploadAnswer upload{"main.go", 42};
  CHECK(encode_upload_answer(upload) == R"({"filename":"main.go","size":42})");
  CHECK(decode_upload_answer(encode_upload_answer(upload)) == upload);
  const UploadTarAnswer tar{3, 4096};
  CHECK(encode_upload_tar_answer(tar) == R"({"files":3,"bytes":4096})");
  CHECK(decode_upload_tar_answer(encode_upload_tar_answer(tar)) == tar);
  const ResetAnswer reset{7};
  CHECK(encode_reset_answer(reset) == R"({"removed":7})");
  CHECK(decode_reset_answer(encode_reset_answer(reset)) == reset);
}

TEST_CASE("a readiness answer of another runtime reads leniently, and non-JSON is refused") {
  CHECK(decode_status_answer(R"({"status":"ok"})").status == "ok");
  CHECK(decode_status_answer(R"({"status":1})").status.empty());
  CHECK_THROWS_WITH_AS(decode_status_answer("ok"), "the sandbox's answer is not valid JSON: "
                       "Invalid value. (line 1, column 1)", MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_status_answer(R"(["ok"])"), "the sandbox's answer is not a JSON object",
                       MalformedMessage);
}

TEST_CASE("the file routes' answers survive encode and decode unchanged") {
  const std::vector<ListEntry> entries{{"a.go", 12, false, 1700000000.25},
                                       {"sub", 4096, true, 1700000001.5}};
  CHECK(encode_list_answer(entries) ==
        R"([{"name":"a.go","size":12,"type":"file","mod_time":1700000000.25},)"
        R"({"name":"sub","size":4096,"type":"directory","mod_time":1700000001.5}])");
  CHECK(decode_list_answer(encode_list_answer(entries)) == entries);
  CHECK(decode_list_answer("[]").empty());
  CHECK_THROWS_WITH_AS(decode_list_answer("{}"), "the sandbox's answer is not a JSON array",
                       MalformedMessage);
  CHECK_THROWS_WITH_AS(decode_list_answer("[1]"),
                       "the sandbox's answer lists an entry that is not a JSON object",
                       MalformedMessage);
  const ExistsAnswer exists{"dir/a b.go", true};
  CHECK(encode_exists_answer(exists) == R"({"path":"dir/a b.go","exists":true})");
  CHECK(decode_exists_answer(encode_exists_answer(exists)) == exists);
}

TEST_CASE("an error answer carries its detail, or another runtime's message") {
  CHECK(encode_error_answer("Nothing at \"x\"") == R"({"detail":"Nothing at \"x\""})");
  CHECK(decode_error_answer(encode_error_answer("bad \xff")) == "bad \xEF\xBF\xBD");
  CHECK(decode_error_answer(R"({"message":"quota"})") == "quota");
  CHECK(decode_error_answer(R"({"detail":"d","message":"m"})") == "d");
  CHECK_FALSE(decode_error_answer(R"({"detail":5})"));
  CHECK_FALSE(decode_error_answer("<html>502</html>"));
}
