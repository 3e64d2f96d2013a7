// POST /execute's body: what the daemon sends comes back equal, byte for byte in the shape the
// contract fixes, and every body the server must refuse is refused with the message a client of
// the sandbox API reads in {"detail": ...}.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "malformed_message.hpp"
#include "sandbox_api/execute_request.hpp"

using namespace kg::wire::sandbox_api;
using kg::wire::MalformedMessage;

namespace {

ExecuteRequest full_request() {
  ExecuteRequest request;
  request.command = "go build -o /tmp/p . && /tmp/p 'é'";
  request.env = {{"GOFLAGS", "-mod=mod"}, {"EMPTY", ""}, {"UNICODE", "ünï"}};
  request.timeout_ms = 12'345;
  request.output_limit_bytes = 65'536;
  request.limits = ExecuteLimits{10, 1 << 20, 256};
  request.read_file = ReadFileRequest{".kode-gopher/result.json", 262'144};
  request.clean_state = true;
  request.credentials =
      ExecuteCredentials{"ya29.token", "2999-01-01T00:00:00Z", "me@example.com", "my-project", ""};
  request.prestart_arguments = std::vector<std::string>{"--auto", "/app"};
  return request;
}

// The message decode_execute_request refuses `body` with.
std::string refusal_of(const std::string& body) {
  try {
    (void)decode_execute_request(body);
  } catch (const MalformedMessage& e) {
    return e.what();
  }
  FAIL("accepted: " << body);
  return {};
}

}  // namespace

TEST_CASE("an /execute request survives encode and decode unchanged") {
  const ExecuteRequest request = full_request();
  CHECK(decode_execute_request(encode_execute_request(request)) == request);

  ExecuteRequest minimal;
  minimal.command = "true";
  CHECK(decode_execute_request(encode_execute_request(minimal)) == minimal);

  ExecuteRequest repeated_names = minimal;
  repeated_names.env = {{"A", "x=y"}, {"A", "second"}};  // order and repeats are kept
  CHECK(decode_execute_request(encode_execute_request(repeated_names)) == repeated_names);
}

TEST_CASE("an /execute request is written in the contract's member order") {
  ExecuteRequest request;
  request.command = "ls";
  request.output_limit_bytes = 100;
  request.env = {{"A", "1"}};
  CHECK(encode_execute_request(request) ==
        R"({"command":"ls","timeout_ms":60000,"output_limit_bytes":100,)"
        R"("limits":{"cpu_seconds":0,"file_size_bytes":0,"open_files":0},"env":{"A":"1"}})");
  request.clean_state = true;
  request.read_file = ReadFileRequest{"r.json", 5};
  request.credentials = ExecuteCredentials{"t", "2030-01-01T00:00:00Z", "", "p", ""};
  request.prestart_arguments = std::vector<std::string>{"/app"};
  CHECK(encode_execute_request(request) ==
        R"({"command":"ls","timeout_ms":60000,"output_limit_bytes":100,"clean_state":true,)"
        R"("limits":{"cpu_seconds":0,"file_size_bytes":0,"open_files":0},)"
        R"("read_file":{"path":"r.json","max_bytes":5},)"
        R"("credentials":{"access_token":"t","expiry":"2030-01-01T00:00:00Z","project":"p"},)"
        R"("prestart":{"arguments":["/app"]},)"
        R"("env":{"A":"1"}})");
}

TEST_CASE("an /execute request leaves out what it does not set, and the server's defaults apply") {
  const ExecuteRequest request = decode_execute_request(R"({"command":"ls","env":null})");
  CHECK(request.command == "ls");
  CHECK(request.env.empty());
  CHECK(request.timeout_ms == kDefaultTimeoutMs);
  CHECK_FALSE(request.output_limit_bytes);
  CHECK(request.limits == ExecuteLimits{});
  CHECK_FALSE(request.read_file);
  CHECK_FALSE(request.clean_state);
  CHECK_FALSE(request.credentials);
  CHECK_FALSE(request.prestart_arguments);
  const auto read = decode_execute_request(R"({"command":"ls","read_file":{"path":"a"}})").read_file;
  REQUIRE(read);
  CHECK(read->max_bytes == kDefaultReadFileBytes);
}

TEST_CASE("a body that is not an /execute request is refused with what is wrong") {
  CHECK(refusal_of("{") .rfind("The /execute body is not valid JSON", 0) == 0);
  CHECK(refusal_of("[1]") == R"(The /execute body must be a JSON object such as {"command": "ls"})");
  CHECK(refusal_of("\"\xff\"").rfind("The /execute body has a string that is not UTF-8", 0) == 0);
  CHECK(refusal_of(std::string(100, '[') + std::string(100, ']'))
            .rfind("The /execute body nests deeper than 64 levels", 0) == 0);
  const std::string command_shape =
      R"("command" is required and must be a non-empty string, such as "ls -la")";
  CHECK(refusal_of("{}") == command_shape);
  CHECK(refusal_of(R"({"command":""})") == command_shape);
  CHECK(refusal_of(R"({"command":7})") == command_shape);
  CHECK(refusal_of(R"({"command":"a\u0000b"})") ==
        "\"command\" holds a NUL byte, which a shell command cannot hold");
}

TEST_CASE("env, timeout_ms and output_limit_bytes out of shape are refused") {
  CHECK(refusal_of(R"({"command":"ls","env":[]})") ==
        R"("env" must be an object of strings, such as {"GOFLAGS": "-mod=mod"})");
  CHECK(refusal_of(R"({"command":"ls","env":{"A=B":"x"}})") ==
        "\"env\" has the invalid variable name \"A=B\": names must be non-empty and hold no '=' or NUL");
  CHECK(refusal_of(R"({"command":"ls","env":{"":"x"}})") ==
        "\"env\" has the invalid variable name \"\": names must be non-empty and hold no '=' or NUL");
  CHECK(refusal_of(R"({"command":"ls","env":{"A":1}})") == "\"env\".\"A\" must be a string");
  CHECK(refusal_of(R"({"command":"ls","env":{"A":"x\u0000"}})") ==
        "\"env\".\"A\" holds a NUL byte, which no variable can hold");
  CHECK(refusal_of(R"({"command":"ls","timeout_ms":0})") ==
        "\"timeout_ms\" must be an integer from 1 to 3600000");
  CHECK(refusal_of(R"({"command":"ls","timeout_ms":3600001})") ==
        "\"timeout_ms\" must be an integer from 1 to 3600000");
  CHECK(refusal_of(R"({"command":"ls","timeout_ms":1.5})") ==
        "\"timeout_ms\" must be an integer from 1 to 3600000");
  CHECK(refusal_of(R"({"command":"ls","output_limit_bytes":-1})") ==
        "\"output_limit_bytes\" must be an integer from 0 to 9223372036854775807");
  CHECK(refusal_of(R"({"command":"ls","output_limit_bytes":"1"})") ==
        "\"output_limit_bytes\" must be an integer from 0 to 9223372036854775807");
}

TEST_CASE("limits, clean_state and read_file out of shape are refused") {
  CHECK(refusal_of(R"({"command":"ls","limits":3})") ==
        R"("limits" must be an object such as {"cpu_seconds": 10, "open_files": 256})");
  CHECK(refusal_of(R"({"command":"ls","limits":{"memory":1}})") ==
        "\"limits\" has the unknown key \"memory\"; known: cpu_seconds, file_size_bytes, open_files");
  CHECK(refusal_of(R"({"command":"ls","limits":{"cpu_seconds":86401}})") ==
        "\"cpu_seconds\" must be an integer from 0 to 86400");
  CHECK(refusal_of(R"({"command":"ls","limits":{"open_files":15}})") ==
        "\"limits\".\"open_files\" must be 0 (unchanged) or at least 16: a shell needs a few "
        "descriptors to start");
  CHECK(refusal_of(R"({"command":"ls","clean_state":1})") == "\"clean_state\" must be true or false");
  const std::string read_file_shape =
      R"("read_file" must be an object such as {"path": ".kode-gopher/result.json", "max_bytes": 262144})";
  CHECK(refusal_of(R"({"command":"ls","read_file":"r.json"})") == read_file_shape);
  CHECK(refusal_of(R"({"command":"ls","read_file":{"path":""}})") == read_file_shape);
  CHECK(refusal_of(R"({"command":"ls","read_file":{"path":"a\u0000"}})") ==
        "\"read_file\".\"path\" holds a NUL byte, which no path can hold");
  CHECK(refusal_of(R"({"command":"ls","read_file":{"path":"a","max_bytes":16777217}})") ==
        "\"max_bytes\" must be an integer from 0 to 16777216");
}

TEST_CASE("prestart out of shape is refused") {
  CHECK(refusal_of(R"({"command":"ls","prestart":true})") ==
        R"("prestart" must be an object such as {"arguments": ["--auto", "/app"]})");
  CHECK(refusal_of(R"({"command":"ls","prestart":{}})") ==
        R"("prestart" must be an object such as {"arguments": ["--auto", "/app"]})");
  CHECK(refusal_of(R"({"command":"ls","prestart":{"arguments":[],"env":{}}})") ==
        R"("prestart" has the unknown key "env"; known: arguments)");
  CHECK(refusal_of(R"({"command":"ls","prestart":{"arguments":["a",2]}})") ==
        R"("prestart"."arguments" must hold strings only)");
  CHECK(refusal_of(R"({"command":"ls","prestart":{"arguments":["a",""]}})").starts_with(
        R"("prestart"."arguments" holds an empty argument or a NUL byte)"));
  CHECK(decode_execute_request(R"({"command":"ls","prestart":{"arguments":[]}})")
            .prestart_arguments == std::vector<std::string>{});
}

TEST_CASE("credentials out of shape are refused before anything of them is used") {
  CHECK(refusal_of(R"({"command":"ls","credentials":"ya29"})") ==
        R"("credentials" must be an object such as {"access_token": "ya29...", "expiry": )"
        R"("2026-12-03T09:00:00Z", "email": "me@example.com", "project": "my-project"})");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"refresh_token":"x"}})") ==
        "\"credentials\": unknown key \"refresh_token\"; known: access_token, expiry, email, "
        "project, quota_project (only a short-lived access token may enter a sandbox)");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"expiry":"2030-01-01T00:00:00Z"}})") ==
        "\"credentials\": \"access_token\" is empty or missing: mint a token on the host first");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"access_token":"a b"}})") ==
        "\"credentials\": \"access_token\" holds a space or control character");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"access_token":"t"}})") ==
        "\"credentials\": \"expiry\" is required (RFC 3339, e.g. 2026-12-03T09:00:00Z)");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"access_token":"t","expiry":"tomorrow"}})") ==
        "\"credentials\": \"expiry\" must be an RFC 3339 time such as 2026-12-03T09:00:00Z, got "
        "\"tomorrow\"");
  CHECK(refusal_of(R"({"command":"ls","credentials":{"access_token":"t",)"
                   R"("expiry":"2030-01-01T00:00:00Z","email":5}})") ==
        "\"credentials\": \"email\" must be a string");
}
