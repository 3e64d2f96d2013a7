// The daemon API's ExecuteRequest (docs/daemon-api.md): what the CLI and the MCP tool send comes
// back equal through the daemon's reading, in the bytes they have always sent, and a body out of
// shape is refused with the message the API answers as bad_request.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/execute_request.hpp"
#include "json_reader.hpp"
#include "malformed_message.hpp"

using namespace kg::wire::daemon_api;
using kg::wire::MalformedMessage;

namespace {

ExecuteRequest decode_text(const std::string& text) {
  const kg::json::ReadJson read = kg::json::read_json(text, kg::json::kRequestLimits);
  REQUIRE_FALSE(read.refused);
  return decode_execute_request(read.document);
}

std::string refusal_of(const std::string& text) {
  try {
    (void)decode_text(text);
  } catch (const MalformedMessage& e) {
    return e.what();
  }
  FAIL("accepted: " << text);
  return {};
}

}  // namespace

TEST_CASE("a daemon ExecuteRequest survives encode and decode unchanged") {
  ExecuteRequest files;
  files.files = {{"main.go", std::string("package main\n\0x", 15)}, {"lib/a.go", "ünï"}};
  files.extra_imports = std::vector<std::string>{"github.com/x/y"};
  files.runtime = "yaegi";
  files.timeout_ms = 1500;
  files.limits.memory_bytes = 1ull << 30;
  files.limits.pids = 64;
  files.limits.output_bytes = 4096;
  files.client = "claude-code";
  CHECK(decode_text(encode_execute_request(files)) == files);

  ExecuteRequest code;
  code.code = "package main\nfunc main() {}\n";
  code.extra_imports = std::vector<std::string>{};  // given and empty stays given
  CHECK(decode_text(encode_execute_request(code)) == code);
}

TEST_CASE("a daemon ExecuteRequest is written as the CLI and the MCP tool always sent it") {
  ExecuteRequest cli;
  cli.files = {{"lib/a.go", "\"quoted\"\t"}, {"main.go", "package main\n"}};
  cli.runtime = "compiled-go";
  cli.timeout_ms = 1500;
  cli.client = "cli";
  CHECK(encode_execute_request(cli) ==
        R"({"files":{"lib/a.go":"\"quoted\"\t","main.go":"package main\n"},)"
        R"("runtime":"compiled-go","timeout_ms":1500,"client":"cli"})");
  ExecuteRequest mcp;
  mcp.code = "x";
  mcp.extra_imports = std::vector<std::string>{"a/b"};
  mcp.runtime = "auto";
  CHECK(encode_execute_request(mcp) == R"({"code":"x","extra_imports":["a/b"],"runtime":"auto"})");
  ExecuteRequest limited;
  limited.code = "x";
  limited.limits.cpu_seconds = 5;
  limited.limits.open_files = 64;
  CHECK(encode_execute_request(limited) ==
        R"({"code":"x","limits":{"cpu_seconds":5,"open_files":64}})");
}

TEST_CASE("a daemon ExecuteRequest out of shape is refused with what is wrong") {
  const std::string one_of = "send exactly one of \"code\" (a string) or \"files\" (an object)";
  CHECK(refusal_of("{}") == one_of);
  CHECK(refusal_of(R"({"code":"x","files":{"a.go":"y"}})") == one_of);
  CHECK(refusal_of(R"({"code":null,"files":null})") == one_of);
  CHECK(refusal_of(R"({"code":1})") == "\"code\" must be a string");
  CHECK(refusal_of(R"({"files":[]})") == "\"files\" must be an object mapping paths to sources");
  CHECK(refusal_of(R"({"files":{}})") == "\"files\" is empty");
  CHECK(refusal_of(R"({"files":{"a.go":1}})") == "\"files\"[\"a.go\"] must be a string");
  CHECK(refusal_of(R"({"code":"x","extra_imports":"a"})") ==
        "\"extra_imports\" must be an array of strings");
  CHECK(refusal_of(R"({"code":"x","extra_imports":[1]})") ==
        "\"extra_imports\" must be an array of strings");
  CHECK(refusal_of(R"({"code":"x","timeout_ms":-1})") == "\"timeout_ms\" must be a positive integer");
  CHECK(refusal_of(R"({"code":"x","timeout_ms":4294967296})") ==
        "\"timeout_ms\" must be a positive integer");
  CHECK(refusal_of(R"({"code":"x","limits":[]})") ==
        R"("limits" must be an object such as {"memory_bytes": 268435456})");
  CHECK(refusal_of(R"({"code":"x","limits":{"pids":-1}})") ==
        "\"limits\".\"pids\" must be a positive integer");
  CHECK(refusal_of(R"({"code":"x","limits":{"pids":4294967296}})") == "\"limits\".\"pids\" is too large");
  CHECK(refusal_of(R"({"code":"x","limits":{"swap":1}})") ==
        "\"limits\" has the unknown key \"swap\"; known: memory_bytes, pids, cpu_seconds, "
        "file_size_bytes, open_files, output_bytes (and timeout_ms at the top level)");
  CHECK(refusal_of(R"({"code":"x","runtime":3})") == "\"runtime\" must be a string");
  CHECK(refusal_of(R"({"code":"x","client":false})") == "\"client\" must be a string");
  CHECK(refusal_of("[]") == "the request body must be a JSON object");
}
