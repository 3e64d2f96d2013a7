// The daemon API's ExecuteRequest (docs/daemon-api.md): what the CLI and the MCP tool send comes
// back equal through the daemon's reading, in the bytes they have always sent, and a body out of
// shape is refused with the message the API answers as bad_request.
#include <doctest/doctest.h>

#include <string>

#include "daemon_api/api_policy_names.hpp"
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

TEST_CASE("api_policy survives encode and decode; an empty one is not written") {
  ExecuteRequest request;
  request.code = "package main";
  CHECK(encode_execute_request(request) == R"({"code":"package main"})");
  request.api_policy.read_only = true;
  request.api_policy.projects = std::vector<std::string>{"proj-a", "example.com:proj-b", "123456"};
  request.api_policy.buckets = std::vector<std::string>{"my_bucket", "logs.example.com"};
  const std::string text = encode_execute_request(request);
  CHECK(text ==
        R"({"code":"package main","api_policy":{"read_only":true,"projects":["proj-a","example.com:proj-b","123456"],"buckets":["my_bucket","logs.example.com"]}})");
  CHECK(decode_text(text) == request);
  CHECK(decode_text(R"({"code":"x","api_policy":{"read_only":false}})").api_policy.read_only == false);
  CHECK(decode_text(R"({"code":"x","api_policy":null})").api_policy.empty());
}

TEST_CASE("an api_policy out of shape is refused naming the member") {
  CHECK(refusal_of(R"({"code":"x","api_policy":true})").starts_with("\"api_policy\" must be an object"));
  CHECK(refusal_of(R"({"code":"x","api_policy":{"read_only":"yes"}})") ==
        "\"api_policy\".\"read_only\" must be true or false");
  CHECK(refusal_of(R"({"code":"x","api_policy":{"projects":"p"}})").starts_with(
      "\"api_policy\".\"projects\" must be an array of strings"));
  CHECK(refusal_of(R"({"code":"x","api_policy":{"projects":[]}})").starts_with(
      "\"api_policy\".\"projects\" is empty"));
  CHECK(refusal_of(R"({"code":"x","api_policy":{"projects":["proj"]}})").starts_with(
      "\"api_policy\".\"projects\": \"proj\" is not a project ID"));
  CHECK(refusal_of(R"({"code":"x","api_policy":{"projects":["Proj-abc"]}})").find("not a project ID") !=
        std::string::npos);
  CHECK(refusal_of(R"({"code":"x","api_policy":{"buckets":["-bad"]}})").starts_with(
      "\"api_policy\".\"buckets\": \"-bad\" is not a bucket name"));
  CHECK(refusal_of(R"({"code":"x","api_policy":{"buckets":["UPPER"]}})").find("not a bucket name") !=
        std::string::npos);
  CHECK(refusal_of(R"({"code":"x","api_policy":{"bucket":["b-1"]}})") ==
        "\"api_policy\" has the unknown key \"bucket\"; known: read_only, projects, buckets");
}

TEST_CASE("project and bucket names: what Google accepts, and nothing that could smuggle a path") {
  for (const char* good : {"abcdef", "my-project-123", "a23456789012345678901234567890", "12345",
                           "example.com:my-proj"}) {
    INFO(good);
    CHECK_FALSE(project_name_problem(good));
  }
  for (const char* bad : {"", "abcde", "a234567890123456789012345678901", "1abcdef", "my-project-",
                          "my_project", "projects/p", "p*", ":my-proj", "my proj"}) {
    INFO(bad);
    CHECK(project_name_problem(bad));
  }
  for (const char* good : {"abc", "a-b_c.d", "0bucket9"}) {
    INFO(good);
    CHECK_FALSE(bucket_name_problem(good));
  }
  CHECK_FALSE(bucket_name_problem(std::string(63, 'a') + "." + std::string(63, 'b')));
  for (const std::string bad : {std::string("ab"), std::string("a/b"), std::string("_ab"),
                                std::string("ab."), std::string(64, 'a'), std::string(223, 'a'),
                                std::string("b*")}) {
    INFO(bad);
    CHECK(bucket_name_problem(bad));
  }
}
