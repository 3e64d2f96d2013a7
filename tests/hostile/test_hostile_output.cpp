// Hostile output: what a program leaves for the daemon to read — a result.json nested 120 000
// levels deep, one full of bytes that are not UTF-8, stdout cut inside a character — must come
// back as a valid answer with a warning, never as a crashed daemon (issue 16, attacks 2 and 8).
// Each test ends with the daemon healthy and the record right.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hostile_checks.hpp"
#include "../support/test_json.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// A program that writes `result` (a Go expression of type string) as its own result.json.
std::string writing_result(const std::string& result) {
  return R"go(package main

import (
	"fmt"
	"os"
	"strings"
)

var _ = strings.Repeat

func main() {
	doc := )go" + result + R"go(
	if err := os.MkdirAll("/app/.kode-gopher", 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile("/app/.kode-gopher/result.json", []byte(doc), 0o644); err != nil {
		panic(err)
	}
	fmt.Println("wrote", len(doc), "bytes")
}
)go";
}

// `depth` levels in all: the result object, then depth - 1 nested arrays.
std::string nested_result(int depth) {
  return R"go(`{"kind":"ok","value":` + strings.Repeat("[", )go" + std::to_string(depth - 1) +
         R"go() + strings.Repeat("]", )go" + std::to_string(depth - 1) + R"go() + `}`)go";
}

bool has_warning_containing(const rapidjson::Value& result, const std::string& text) {
  const auto it = result.FindMember("warnings");
  if (it == result.MemberEnd() || !it->value.IsArray()) return false;
  for (const auto& warning : it->value.GetArray()) {
    if (warning.IsString() && std::string(warning.GetString()).find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool bool_member(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  REQUIRE_MESSAGE(it != object.MemberEnd(), "no member \"" << key << "\"");
  REQUIRE(it->value.IsBool());
  return it->value.GetBool();
}

// POSTs to /v1/execute and parses the answer as a strict client would: UTF-8 validated.
rapidjson::Document execute_strictly(DaemonFixture& daemon, const std::string& main_go) {
  const auto response = daemon.post("/v1/execute", execute_body({{"main.go", main_go}}));
  INFO("answer: " << response.status << " " << response.body.substr(0, 800));
  REQUIRE(response.status == 200);
  kg::json::ReadJson r_read = kg::test::read_test_json(response.body);
  rapidjson::Document& r = r_read.document;
  REQUIRE_MESSAGE(!r_read.refused, "the answer " << r_read.refused->describe());
  return std::move(r);
}

}  // namespace

TEST_CASE("hostile output: a result.json 120 000 levels deep is a warning, not a crashed daemon") {
  HostileDaemon daemon;
  daemon.start();

  SUBCASE("written by the program itself: 240 KB of nested arrays, under the 256 KiB cap") {
    const auto r = execute_once(daemon.fixture(), writing_result(nested_result(120'001)));
    INFO("stdout=" << string_member(r, "stdout") << " stderr=" << string_member(r, "stderr"));
    CHECK(string_member(r, "status") == "ok");
    CHECK(int_member(r, "exit_code") == 0);
    CHECK(string_member(r, "stdout") == "wrote 240022 bytes\n");
    CHECK_FALSE(r.HasMember("result"));
    CHECK(has_warning_containing(r, "result.json nests deeper than 128 levels (line 1, column 149); "
                                    "it was ignored"));
    CHECK(bool_member(r, "is_error"));
    check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  }

  SUBCASE("returned by a snippet: the wrapper marshals 5 000 nested slices") {
    const auto r = execute_once(daemon.fixture(), R"go(package snippet

import "context"

func run(ctx context.Context) (any, error) {
	var v any = "bottom"
	for i := 0; i < 5000; i++ {
		v = []any{v}
	}
	return v, nil
}
)go");
    CHECK(string_member(r, "mode") == "wrapped");
    CHECK(string_member(r, "status") == "ok");
    CHECK_FALSE(r.HasMember("result"));
    CHECK(has_warning_containing(r, "result.json nests deeper than 128 levels"));
    check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  }

  SUBCASE("128 levels, the bound itself, come back whole, also through the CLI") {
    const std::string program = writing_result(nested_result(128));
    const auto r = execute_once(daemon.fixture(), program);
    CHECK(string_member(r, "status") == "ok");
    CHECK_FALSE(r.HasMember("warnings"));
    CHECK_FALSE(bool_member(r, "is_error"));
    REQUIRE(r.HasMember("result"));
    const rapidjson::Value* value = &r["result"]["value"];
    int levels = 1;
    while (value->IsArray()) {
      ++levels;
      if (value->Empty()) break;
      value = &(*value)[0];
    }
    CHECK(levels == 128);

    const std::string dir = daemon->dir() + "/at-bound";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/main.go") << program;
    std::string out, err;
    CHECK(run_cli({"--config", daemon->config_path(), "exec", dir}, out, err) == 0);
    INFO("CLI stdout: " << out.substr(0, 400) << "\nCLI stderr: " << err);
    CHECK(out.find("── result ──\n{\n  \"kind\": \"ok\",\n  \"value\": [\n") != std::string::npos);
  }

  SUBCASE("the CLI shows the deep result's warning and exits as for a failed program") {
    const std::string dir = daemon->dir() + "/deep";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/main.go") << writing_result(nested_result(120'001));
    std::string out, err;
    CHECK(run_cli({"--config", daemon->config_path(), "exec", dir}, out, err) == 1);
    INFO("CLI stdout: " << out.substr(0, 400) << "\nCLI stderr: " << err);
    CHECK(out.find("warning: result.json nests deeper than 128 levels") != std::string::npos);
  }

  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile output: bytes that are not UTF-8 in result.json come back as U+FFFD, with a warning") {
  HostileDaemon daemon;
  daemon.start();

  SUBCASE("in values and keys of an ok result") {
    const auto r = execute_strictly(daemon.fixture(), writing_result(R"go("{\"kind\":\"ok\",\"value\":{" +
		"\"bad \xff\xfe key\":\"raw \xff\xfe\"," +
		"\"overlong\":\"\xc0\x80\"," +
		"\"surrogate\":\"\xed\xa0\x80\"," +
		"\"escaped\":\"\\udc00\"," +
		"\"above\":\"\xf4\x90\x80\x80\"," +
		"\"cut\":\"\xe2\x82\"," +
		"\"fine\":\"é ✓\"}}")go"));
    CHECK(string_member(r, "status") == "ok");
    CHECK(has_warning_containing(r, "result.json had 7 string(s) or key(s) that were not valid "
                                    "UTF-8; each invalid byte was replaced with U+FFFD"));
    CHECK(bool_member(r, "is_error"));
    REQUIRE(r.HasMember("result"));
    const auto& value = r["result"]["value"];
    REQUIRE(value.IsObject());
    CHECK(string_member(value, ("bad " + kFffd + kFffd + " key").c_str()) == "raw " + kFffd + kFffd);
    CHECK(string_member(value, "overlong") == kFffd + kFffd);
    CHECK(string_member(value, "surrogate") == kFffd + kFffd + kFffd);
    CHECK(string_member(value, "escaped") == kFffd + kFffd + kFffd);
    CHECK(string_member(value, "above") == kFffd + kFffd + kFffd + kFffd);
    CHECK(string_member(value, "cut") == kFffd + kFffd);
    CHECK(string_member(value, "fine") == "\xC3\xA9 \xE2\x9C\x93");
    check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  }

  SUBCASE("in a panic's message and stack, and in an unknown kind quoted by the warning") {
    const auto r = execute_strictly(daemon.fixture(), writing_result(
        R"go("{\"kind\":\"panic\",\"message\":\"boom \xff\",\"stack\":\"goroutine \xc0\x80 [running]\"}")go"));
    CHECK(has_warning_containing(r, "result.json had 2 string(s)"));
    REQUIRE(r.HasMember("result"));
    CHECK(string_member(r["result"], "kind") == "panic");
    CHECK(string_member(r["result"], "message") == "boom " + kFffd);
    CHECK(string_member(r["result"], "stack") == "goroutine " + kFffd + kFffd + " [running]");

    const auto unknown = execute_strictly(daemon.fixture(), writing_result(
        R"go("{\"kind\":\"odd \xff\xfe\"}")go"));
    CHECK_FALSE(unknown.HasMember("result"));
    CHECK(has_warning_containing(unknown, "result.json has unknown kind \"odd " + kFffd + kFffd + "\""));
  }

  SUBCASE("in stdout longer than the kept head and tail, cut inside a character") {
    // "é" across the 8 KiB head's end, "€" across the 8 KiB tail's start.
    const auto r = execute_strictly(daemon.fixture(), R"go(package main

import (
	"fmt"
	"strings"
)

func main() {
	fmt.Print(strings.Repeat("a", 8191) + "é" + strings.Repeat("b", 20000) + "€" + strings.Repeat("c", 8190))
}
)go");
    CHECK(string_member(r, "status") == "ok");
    const std::string out = string_member(r, "stdout");
    CHECK(out == std::string(8191, 'a') + "\n... [20005 bytes elided] ...\n" + std::string(8190, 'c'));
    CHECK_FALSE(r.HasMember("warnings"));
    check_call_recorded(daemon.fixture(), r, CallScope::one_shot);
  }

  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

