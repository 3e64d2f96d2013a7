// What an agent reads when a call goes wrong, through the daemon API and the CLI against a real
// daemon (issue 28): a per-call time limit up to [limits] max_run_timeout_ms, a timeout that says
// what to do, output over the limit that keeps the end of what was printed and says how much
// was lost, a NaN in a snippet's value named by its path in both runtimes, a panic's stack
// without the wrapper's frames, and docs lookups that suggest near names and index a package.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::DaemonFixtureOptions;
using kg::test::json_string;
using kg::test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string warnings_of(const rapidjson::Value& result) {
  std::string all;
  if (!result.HasMember("warnings")) return all;
  for (const auto& warning : result["warnings"].GetArray()) all += std::string(warning.GetString()) + "\n";
  return all;
}

// A daemon whose run limit is 1 s by default and at most 4 s for a call that asks.
DaemonFixtureOptions short_limits() {
  DaemonFixtureOptions options;
  options.extra_sections = "[limits]\nrun_timeout_ms = 1000\nmax_run_timeout_ms = 4000\n";
  return options;
}

constexpr const char* kSleeper = R"(package main

import "time"

func main() { time.Sleep(2 * time.Second); println("slept") }
)";

}  // namespace

TEST_CASE("a call asks for its own run limit, up to [limits] max_run_timeout_ms") {
  DaemonFixture daemon(short_limits());
  daemon.start();
  const auto session = daemon.open_session();

  const auto by_default = daemon.execute(session, kSleeper);
  CHECK(json_string(by_default, "status") == "timeout");
  const std::string advice = warnings_of(by_default);
  INFO(advice);
  CHECK(contains(advice,
                 "the program ran longer than 1000 ms and was stopped: ask for a longer limit with "
                 "timeout_ms (up to 4000, the daemon's [limits] max_run_timeout_ms), stop in time "
                 "by giving run's ctx a deadline (context.WithTimeout) and checking it in loops, "
                 "or do less per call (work in batches and keep progress under /app/persist for "
                 "the next call)"));

  const auto longer = daemon.execute(session, kSleeper, R"("timeout_ms": 3500)");
  CHECK(json_string(longer, "status") == "ok");
  CHECK(json_string(longer, "stderr") == "slept\n");

  const auto at_most = daemon.execute(session, kSleeper, R"("timeout_ms": 4000)");
  CHECK(json_string(at_most, "status") == "ok");

  const auto too_long = daemon.post("/v1/sessions/" + session + "/execute",
                                    R"({"code": "package main\nfunc main() {}\n", "timeout_ms": 4001})");
  CHECK(too_long.status == 400);
  const auto refusal = daemon.json(too_long);
  CHECK(json_string(refusal["error"], "code") == "invalid_input");
  CHECK(json_string(refusal["error"], "message") ==
        "timeout_ms must be from 1 to 4000 (the daemon's [limits] max_run_timeout_ms), got 4001; "
        "ask for at most 4000 ms, or leave timeout_ms out for the default of 1000 ms ([limits] "
        "run_timeout_ms)");

  // The daemon keeps serving the session.
  const auto after = daemon.execute(session, "package main\nfunc main() { println(\"after\") }\n");
  CHECK(json_string(after, "status") == "ok");
}

TEST_CASE("kode-gopher exec --timeout asks for the call's run limit") {
  DaemonFixture daemon(short_limits());
  daemon.start();
  const std::string program = daemon.dir() + "/sleeper.go";
  std::ofstream(program) << kSleeper;
  std::string out, err;
  const int ok = run_cli({"--config", daemon.config_path(), "exec", "--timeout", "3500", program},
                         out, err);
  INFO(out << err);
  CHECK(ok == 0);
  CHECK(contains(out, "exit=0"));

  const int refused = run_cli(
      {"--config", daemon.config_path(), "exec", "--timeout", "4001", program}, out, err);
  INFO(out << err);
  CHECK(refused != 0);
  CHECK(contains(err, "timeout_ms must be from 1 to 4000 (the daemon's [limits] "
                      "max_run_timeout_ms), got 4001"));

  const int timed_out =
      run_cli({"--config", daemon.config_path(), "exec", program}, out, err);
  CHECK(timed_out == 3);  // exit_codes.cpp: the program timed out
  CHECK(contains(out, "warning: the program ran longer than 1000 ms and was stopped: ask for a "
                      "longer limit with timeout_ms (up to 4000"));
}

TEST_CASE("output over the limit keeps its head and the end of what was printed, and says so") {
  DaemonFixtureOptions options;
  options.extra_sections = "[limits]\noutput_bytes = 65536\n";
  DaemonFixture daemon(options);
  daemon.start();
  const auto session = daemon.open_session();
  const auto r = daemon.execute(session, R"(package main

import (
	"fmt"
	"strings"
)

func main() {
	line := strings.Repeat("x", 99) + "\n"
	for i := 0; i < 10000; i++ {
		fmt.Print(line)
	}
	fmt.Println("THE END")
}
)");
  CHECK(json_string(r, "status") == "output_limit");
  const std::string out = json_string(r, "stdout");
  CHECK(out.starts_with("xxxxxxxxxx"));
  CHECK(out.ends_with("\nTHE END\n"));
  const std::string warnings = warnings_of(r);
  INFO(warnings);
  // 1 000 008 bytes printed, 65 536 kept.
  CHECK(contains(warnings,
                 "stdout went over the 65536-byte limit per stream: 934472 bytes from its middle "
                 "were discarded (its head and the end of what was printed are kept); the program "
                 "was not stopped and ran to its end (exit code 0). Print less (a summary, or "
                 "return the data as a snippet's value), or write big output to a file under "
                 "/app/persist and read back the part you need in the next call"));
}

TEST_CASE("a NaN in a snippet's value is named by its path, in both runtimes") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const std::string snippet = R"(package snippet

import (
	"context"
	"math"
)

type Score struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

func run(ctx context.Context) (any, error) {
	items := []Score{}
	for i := 0; i < 5; i++ {
		score := float64(i)
		if i == 3 {
			score = math.NaN()
		}
		items = append(items, Score{"n", score})
	}
	return map[string]any{"items": items}, nil
}
)";
  const std::string expected =
      "result[\"items\"][3].score is NaN, which JSON cannot hold, so the whole value was lost "
      "(json: unsupported value: NaN): replace NaN and ±Inf before returning, e.g. skip the item, "
      "use a *float64 left nil for \"no value\", or format the number as a string";
  for (const char* runtime : {"compiled-go", "yaegi"}) {
    CAPTURE(runtime);
    const char* runner = std::getenv("KG_YAEGI_RUNNER");
    if (std::string(runtime) == "yaegi" && (runner == nullptr || *runner == '\0')) continue;
    const auto r = daemon.execute(session, snippet,
                                  std::string(R"("runtime": ")") + runtime + "\"");
    CHECK(json_string(r, "status") == "runtime_error");
    REQUIRE(r.HasMember("result"));
    CHECK(json_string(r["result"], "kind") == "marshal_error");
    CHECK(json_string(r["result"], "message") == expected);
  }
}

TEST_CASE("a recovered panic's stack starts where the program panicked, in both runtimes") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const std::string snippet = R"(package snippet

import "context"

func run(ctx context.Context) (any, error) {
	var m map[string]int
	m["boom"] = 1
	return nil, nil
}
)";
  for (const char* runtime : {"compiled-go", "yaegi"}) {
    CAPTURE(runtime);
    const char* runner = std::getenv("KG_YAEGI_RUNNER");
    if (std::string(runtime) == "yaegi" && (runner == nullptr || *runner == '\0')) continue;
    const auto r = daemon.execute(session, snippet, std::string(R"("runtime": ")") + runtime + "\"");
    CHECK(json_string(r, "status") == "panic");
    REQUIRE(r.HasMember("result"));
    const std::string stack = json_string(r["result"], "stack");
    INFO(stack);
    CHECK(stack.starts_with("goroutine 1 [running]:\nmain.run("));
    // Yaegi places a frame by the statement it runs, not always the compiler's line.
    CHECK(contains(stack, std::string(runtime) == "yaegi" ? "/app/main.go:" : "main.go:7"));
    CHECK_FALSE(contains(stack, "kg_wrapper.go"));
    CHECK_FALSE(contains(stack, "runtime/debug.Stack"));
    CHECK_FALSE(contains(stack, "kodeGopher"));
  }
}

TEST_CASE("docs lookups suggest near names and index a whole package briefly") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto misspelled = daemon.post("/v1/sessions/" + session + "/docs",
                                      R"({"package":"cloud.google.com/go/storage","symbol":"NewClinet"})");
  CHECK(misspelled.status == 400);
  const std::string message = json_string(daemon.json(misspelled)["error"], "message");
  CHECK(message ==
        "go doc cloud.google.com/go/storage NewClinet: doc: no symbol NewClinet in package "
        "cloud.google.com/go/storage. Did you mean NewClient? Ask for one of them as symbol");

  const auto method = daemon.post("/v1/sessions/" + session + "/docs",
                                  R"({"package":"cloud.google.com/go/storage","symbol":"Client.Bucke"})");
  CHECK(method.status == 400);
  CHECK(contains(json_string(daemon.json(method)["error"], "message"), "Did you mean Client.Bucket"));

  const auto whole = daemon.post("/v1/sessions/" + session + "/docs",
                                 R"({"package":"cloud.google.com/go/bigquery"})");
  REQUIRE(whole.status == 200);
  const std::string index = json_string(daemon.json(whole), "docs");
  INFO(index);
  CHECK(index.starts_with("package bigquery // import \"cloud.google.com/go/bigquery\"\n"));
  CHECK(index.size() < 8000);
  CHECK(contains(index, "Index (ask for one symbol with the symbol argument"));
  CHECK(contains(index, "func NewClient("));
}
