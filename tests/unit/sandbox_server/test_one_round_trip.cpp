// The extensions that save round trips: /upload-tar?replace=1 (reset and upload in one request)
// and /execute's "read_file" (the command and its result file in one request).
#include <Poco/Base64Decoder.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "in_memory_tar.hpp"
#include "running_sandbox_server.hpp"

using kg::net::HttpRequestOptions;
using kg::net::HttpResponse;
using kg::sandbox::testing::detail_of;
using kg::sandbox::testing::file_contents;
using kg::sandbox::testing::InMemoryTar;
using kg::sandbox::testing::parse_json;
using kg::sandbox::testing::RunningSandboxServer;
using kg::sandbox::testing::upload_tar;

namespace {

std::string decode_base64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  return std::string(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
}

// The "file" member of an /execute answer for `command` run with read_file of `path`.
rapidjson::Document execute_and_read(const RunningSandboxServer& sandbox, const std::string& command,
                                     const std::string& path, std::uint64_t max_bytes) {
  const HttpResponse response = sandbox.post_json(
      "/execute", R"({"command": ")" + command + R"(", "read_file": {"path": ")" + path +
                      R"(", "max_bytes": )" + std::to_string(max_bytes) + "}}");
  REQUIRE(response.status == 200);
  auto answer = parse_json(response.body);
  REQUIRE(answer.HasMember("file"));
  rapidjson::Document file;
  file.CopyFrom(answer["file"], file.GetAllocator());
  return file;
}

}  // namespace

TEST_CASE("POST /upload-tar?replace=1 empties the workdir before extracting") {
  RunningSandboxServer sandbox;
  REQUIRE(upload_tar(sandbox, "/upload-tar", InMemoryTar().file("old.go", "old\n").finish()).status == 200);
  std::filesystem::create_directories(sandbox.workdir() / ".kode-gopher");
  std::ofstream(sandbox.workdir() / ".kode-gopher" / "result.json") << "{}";

  const HttpResponse replaced =
      upload_tar(sandbox, "/upload-tar?replace=1", InMemoryTar().file("new.go", "new\n").finish());
  CHECK(replaced.status == 200);
  CHECK(file_contents(sandbox.workdir() / "new.go") == "new\n");
  CHECK_FALSE(std::filesystem::exists(sandbox.workdir() / "old.go"));
  CHECK_FALSE(std::filesystem::exists(sandbox.workdir() / ".kode-gopher"));

  // Without replace, the files join what is there.
  CHECK(upload_tar(sandbox, "/upload-tar?replace=0", InMemoryTar().file("more.go", "more\n").finish())
            .status == 200);
  CHECK(std::filesystem::exists(sandbox.workdir() / "new.go"));

  const HttpResponse bad =
      upload_tar(sandbox, "/upload-tar?replace=yes", InMemoryTar().file("x", "x").finish());
  CHECK(bad.status == 400);
  CHECK(detail_of(bad) == "\"replace\" must be 1 or 0 (true or false), not \"yes\"");
  CHECK(std::filesystem::exists(sandbox.workdir() / "more.go"));
}

TEST_CASE("POST /execute with read_file answers the file as the command left it") {
  RunningSandboxServer sandbox;

  SUBCASE("any bytes, base64") {
    const auto file = execute_and_read(
        sandbox, R"(mkdir -p .kg && printf 'a\\000b\\377\\n' > .kg/out)", ".kg/out", 100);
    CHECK(file["path"].GetString() == std::string(".kg/out"));
    CHECK(file["exists"].GetBool());
    CHECK_FALSE(file.HasMember("error"));
    CHECK(decode_base64(file["content_base64"].GetString()) == std::string("a\0b\377\n", 5));
  }
  SUBCASE("an empty file") {
    const auto file = execute_and_read(sandbox, ": > empty", "empty", 100);
    CHECK(file["exists"].GetBool());
    CHECK(file["content_base64"].GetString() == std::string());
  }
  SUBCASE("a missing file") {
    const auto file = execute_and_read(sandbox, "true", "nope.json", 100);
    CHECK_FALSE(file["exists"].GetBool());
    CHECK_FALSE(file.HasMember("content_base64"));
    CHECK_FALSE(file.HasMember("error"));
  }
  SUBCASE("larger than max_bytes") {
    const auto file = execute_and_read(sandbox, "head -c 101 /dev/zero > big", "big", 100);
    CHECK(file["exists"].GetBool());
    CHECK(file["error"].GetString() == std::string("\"big\" is larger than 100 bytes"));
    CHECK_FALSE(file.HasMember("content_base64"));
  }
  SUBCASE("a link out of the workdir is not followed") {
    std::ofstream(sandbox.scratch() / "secret") << "secret";
    const auto file = execute_and_read(
        sandbox, "ln -s " + (sandbox.scratch() / "secret").string() + " escape", "escape", 100);
    CHECK(std::string(file["error"].GetString()).find("outside the workdir") != std::string::npos);
    CHECK_FALSE(file.HasMember("content_base64"));
  }
  SUBCASE("a directory") {
    const auto file = execute_and_read(sandbox, "mkdir d", "d", 100);
    CHECK(file["error"].GetString() == std::string("\"d\" is not a regular file"));
  }
  SUBCASE("a FIFO does not block the answer") {
    const auto file = execute_and_read(sandbox, "mkfifo pipe", "pipe", 100);
    CHECK(file["error"].GetString() == std::string("\"pipe\" is not a regular file"));
  }
}

TEST_CASE("POST /execute refuses a malformed read_file") {
  RunningSandboxServer sandbox;
  const char* shape =
      R"("read_file" must be an object such as {"path": ".kode-gopher/result.json", "max_bytes": 262144})";
  for (const char* member : {R"("read_file": "result.json")", R"("read_file": {})",
                             R"("read_file": {"path": ""})", R"("read_file": {"path": 3})"}) {
    CAPTURE(member);
    const HttpResponse response =
        sandbox.post_json("/execute", std::string(R"({"command": "true", )") + member + "}");
    CHECK(response.status == 400);
    CHECK(detail_of(response) == shape);
  }
  const HttpResponse too_big = sandbox.post_json(
      "/execute", R"({"command": "true", "read_file": {"path": "x", "max_bytes": 16777217}})");
  CHECK(too_big.status == 400);
  CHECK(detail_of(too_big) == "\"max_bytes\" must be an integer from 0 to 16777216");
}
