// The yaegi runtime and auto through the real daemon, the real sandbox and the real runner
// (sandbox/yaegi-runner): the same result shape, exit codes, limits and cancellation as
// compiled-go, and auto's choice with its reason.
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

namespace {

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  value.Accept(w);
  return buffer.GetString();
}

void require_runner() {
  const char* runner = std::getenv("KG_YAEGI_RUNNER");
  REQUIRE_MESSAGE((runner != nullptr && *runner != '\0'),
                  "this build has no Yaegi runner (sandbox/yaegi-runner); KG_YAEGI_RUNNER is empty");
}

const std::string kYaegi = R"("runtime": "yaegi")";
const std::string kAuto = R"("runtime": "auto")";
const std::string kRunHeader = "package demo\n\nimport \"context\"\n\n";

}  // namespace

TEST_CASE("yaegi: programs and snippets give compiled-go's result shape") {
  require_runner();
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();

  SUBCASE("hello") {
    const auto r = daemon.execute(session, "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\") }\n", kYaegi);
    CHECK(json_string(r, "runtime") == "yaegi");
    CHECK(json_string(r, "status") == "ok");
    CHECK(json_string(r, "phase") == "run");
    CHECK(json_string(r, "mode") == "verbatim");
    CHECK(r["exit_code"].GetInt() == 0);
    CHECK(json_string(r, "stdout") == "hi\n");
    CHECK_FALSE(r.HasMember("stderr"));  // the runner's event lines are not the program's stderr
    CHECK_FALSE(r.HasMember("runtime_reason"));  // only auto gives one
    CHECK(r["is_error"].GetBool() == false);
  }
  SUBCASE("a wrapped snippet's result") {
    const auto r = daemon.execute(
        session, kRunHeader + "func run(ctx context.Context) (any, error) {\n\treturn map[string]any{\"n\": 42, \"s\": \"x\"}, nil\n}\n", kYaegi);
    CHECK(json_string(r, "runtime") == "yaegi");
    CHECK(json_string(r, "status") == "ok");
    CHECK(json_string(r, "mode") == "wrapped");
    CHECK(compact(r["result"]) == R"({"kind":"ok","value":{"n":42,"s":"x"}})");
  }
  SUBCASE("a snippet's error is kind error, exit 1") {
    const auto r = daemon.execute(
        session, kRunHeader + "import \"errors\"\n\nfunc run(ctx context.Context) (any, error) { return nil, errors.New(\"nope\") }\n", kYaegi);
    CHECK(json_string(r, "status") == "runtime_error");
    CHECK(r["exit_code"].GetInt() == 1);
    CHECK(compact(r["result"]) == R"({"kind":"error","message":"nope"})");
  }
  SUBCASE("a snippet's panic is recovered with its stack") {
    const auto r = daemon.execute(
        session, kRunHeader + "func run(ctx context.Context) (any, error) { panic(\"kaboom\") }\n", kYaegi);
    CHECK(json_string(r, "status") == "panic");
    CHECK(r["exit_code"].GetInt() == 1);
    REQUIRE(r.HasMember("result"));
    CHECK(json_string(r["result"], "kind") == "panic");
    CHECK(json_string(r["result"], "message") == "kaboom");
    CHECK_FALSE(json_string(r["result"], "stack").empty());
  }
  SUBCASE("a program's panic exits 2 with panic: on stderr") {
    const auto r = daemon.execute(session, "package main\nfunc main() { panic(\"boom\") }\n", kYaegi);
    CHECK(json_string(r, "status") == "panic");
    CHECK(r["exit_code"].GetInt() == 2);
    CHECK(json_string(r, "stderr").find("panic: boom") != std::string::npos);
  }
  SUBCASE("os.Exit(3) exits 3") {
    const auto r = daemon.execute(session, "package main\nimport \"os\"\nfunc main() { os.Exit(3) }\n", kYaegi);
    CHECK(json_string(r, "status") == "runtime_error");
    CHECK(r["exit_code"].GetInt() == 3);
  }
  SUBCASE("log.Fatal exits 1 with its message") {
    const auto r = daemon.execute(session, "package main\nimport \"log\"\nfunc main() { log.Fatal(\"fatal here\") }\n", kYaegi);
    CHECK(json_string(r, "status") == "runtime_error");
    CHECK(r["exit_code"].GetInt() == 1);
    CHECK(json_string(r, "stderr").find("fatal here") != std::string::npos);
  }
  SUBCASE("the program sees its real environment, without the runner's token") {
    const auto r = daemon.execute(session, R"(package main
import ("fmt"; "os")
func main() { fmt.Println(os.Getenv("HOME") != "", os.Getenv("KG_YAEGI_TOKEN") == "") }
)", kYaegi);
    CHECK(json_string(r, "stdout") == "true true\n");
  }
  SUBCASE("a timeout stops it like a compiled run") {
    const auto r = daemon.execute(session, "package main\nimport \"time\"\nfunc main() { time.Sleep(time.Hour) }\n",
                                  kYaegi + R"(, "timeout_ms": 800)");
    CHECK(json_string(r, "status") == "timeout");
    REQUIRE(r.HasMember("warnings"));
    CHECK(compact(r["warnings"]).find("the program ran longer than 800 ms and was stopped") != std::string::npos);
  }
  SUBCASE("a compile error is phase build with diagnostics in the user's file") {
    const auto r = daemon.execute(session, "package main\nfunc main() { undefinedName() }\n", kYaegi);
    CHECK(json_string(r, "status") == "compile_error");
    CHECK(json_string(r, "phase") == "build");
    REQUIRE(r.HasMember("diagnostics"));
    REQUIRE(r["diagnostics"].Size() >= 1);
    CHECK(json_string(r["diagnostics"][0], "file") == "main.go");
    CHECK(r["diagnostics"][0]["line"].GetInt() == 2);
    CHECK(json_string(r["diagnostics"][0], "message").find("undefinedName") != std::string::npos);
    CHECK_FALSE(r.HasMember("stderr"));  // the event line was the only output
    CHECK(r["is_error"].GetBool());
  }
  SUBCASE("an import outside the curated lockfile is a compile error that says what to use") {
    const auto r = daemon.execute(session, "package main\nimport \"github.com/google/uuid\"\nfunc main() { println(uuid.NewString()) }\n", kYaegi);
    CHECK(json_string(r, "status") == "compile_error");
    CHECK(compact(r["warnings"]).find("run this program with runtime compiled-go (or auto)") != std::string::npos);
  }
  SUBCASE("a go.mod of the caller's is refused with what to use instead") {
    const auto response = daemon.post("/v1/sessions/" + session + "/execute", R"({"runtime": "yaegi", "files": {
        "go.mod": "module example.com/mine\n\ngo 1.24\n",
        "main.go": "package main\nfunc main() {}\n"}})");
    CHECK(response.status == 400);
    CHECK(response.body.find("use runtime compiled-go (or auto)") != std::string::npos);
  }
}

// Which runner serves a call, told by its real command line (/proc/self/cmdline; the program's
// os.Args is the runner's first argument only) and its pid: a runner prestarted with
// --curated is kode-gopher-yaegi-cloud waiting on --call-on-stdin, where a plain runner that
// execs the cloud one for its call would show the call's /app argument.
TEST_CASE("yaegi: after a curated call the cloud runner waits for the next one, one process per call") {
  require_runner();
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const std::string body = R"(
func main() {
	cmdline, _ := os.ReadFile("/proc/self/cmdline")
	words := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	words[0] = filepath.Base(words[0])
	fmt.Println(strings.Join(words, " "), os.Getpid())
	go func() {
		for {
			fmt.Fprintln(os.Stderr, "goroutine of", os.Getpid())
			time.Sleep(time.Millisecond)
		}
	}()
	time.Sleep(5 * time.Millisecond)
)";
  const std::string imports = "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"path/filepath\"\n"
                              "\t\"strings\"\n\t\"time\"\n";
  const std::string curated = imports + "\n\t\"google.golang.org/api/iterator\"\n)\n" + body +
                              "\tfmt.Println(iterator.Done)\n}\n";
  const std::string plain = imports + ")\n" + body + "\tfmt.Println(\"plain\")\n}\n";
  // Each call: its runner's command line and pid (stdout's first line), and its stderr.
  struct Served {
    std::string runner, pid, stderr_text;
  };
  const auto run = [&](bool is_curated) {
    const auto r = daemon.execute(session, is_curated ? curated : plain, kYaegi);
    REQUIRE(json_string(r, "status") == "ok");
    const std::string out = json_string(r, "stdout");
    const std::string last = is_curated ? "no more items in iterator\n" : "plain\n";
    REQUIRE(out.size() > last.size());
    CHECK(out.substr(out.size() - last.size()) == last);
    const std::string first = out.substr(0, out.find('\n'));
    const auto space = first.rfind(' ');
    return Served{first.substr(0, space), first.substr(space + 1),
                  r.HasMember("stderr") ? json_string(r, "stderr") : ""};
  };
  std::vector<Served> served;
  for (const bool is_curated : {true, true, false, false, true}) served.push_back(run(is_curated));
  for (std::size_t i = 0; i < served.size(); ++i) {
    CAPTURE(i);
    CAPTURE(served[i].runner);
    CHECK(served[i].runner == (i == 2 || i == 3 ? "kode-gopher-yaegi --call-on-stdin"
                                                : "kode-gopher-yaegi-cloud --call-on-stdin"));
    for (std::size_t j = 0; j < i; ++j) {
      CHECK(served[i].pid != served[j].pid);  // one process per call
      // No goroutine of an earlier call writes into a later one.
      CHECK(served[i].stderr_text.find("goroutine of " + served[j].pid + "\n") == std::string::npos);
    }
  }
}

TEST_CASE("yaegi: cancelling a running call stops it and keeps the session usable") {
  require_runner();
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  std::string last;
  auto cancelled_at = std::chrono::steady_clock::now();
  daemon.post_streaming(
      "/v1/sessions/" + session + "/execute",
      R"({"runtime": "yaegi", "code": "package main\nimport \"time\"\nfunc main() { time.Sleep(time.Minute) }\n"})",
      [&](const std::string& line) {
        last = line;
        if (line.find(R"("phase":"run")") != std::string::npos) {
          std::thread([&daemon, session, &cancelled_at] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancelled_at = std::chrono::steady_clock::now();
            CHECK(daemon.post("/v1/sessions/" + session + "/cancel", "").body == R"({"cancelled":true})");
          }).detach();
        }
      });
  CHECK(last.starts_with(R"({"error":{"code":"cancelled")"));
  CHECK(std::chrono::steady_clock::now() - cancelled_at < std::chrono::seconds(20));
  const auto next = daemon.execute(session, "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"after\") }\n", kYaegi);
  CHECK(json_string(next, "status") == "ok");
  CHECK(json_string(next, "stdout") == "after\n");
}

TEST_CASE("auto: Yaegi where its check says safe, compiled-go otherwise, and why") {
  require_runner();
  DaemonFixture daemon({.extra_sections = "[runtime]\ndefault = auto\n"});
  daemon.start();
  const auto session = daemon.open_session();

  SUBCASE("a plain standard-library snippet goes to Yaegi, with the reason") {
    // No runtime in the call: the config's default (auto).
    const auto r = daemon.execute(session, kRunHeader + R"(import ("sort"; "strings")

func run(ctx context.Context) (any, error) {
	words := strings.Fields("pear apple fig")
	sort.Strings(words)
	return strings.Join(words, ","), nil
}
)");
    CHECK(json_string(r, "runtime") == "yaegi");
    CHECK_FALSE(json_string(r, "runtime_reason").empty());
    CHECK(compact(r["result"]) == R"({"kind":"ok","value":"apple,fig,pear"})");
  }
  SUBCASE("a program with its own go.mod goes to compiled-go, with the reason") {
    const auto response = daemon.post("/v1/sessions/" + session + "/execute", R"({"runtime": "auto", "files": {
        "go.mod": "module example.com/mine\n\ngo 1.24\n",
        "main.go": "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"mine\") }\n"}})");
    REQUIRE(response.status == 200);
    const auto r = daemon.json(response);
    CHECK(json_string(r, "runtime") == "compiled-go");
    CHECK(json_string(r, "runtime_reason").find("its own go.mod") != std::string::npos);
    CHECK(json_string(r, "stdout") == "mine\n");
  }
  SUBCASE("a construct known to diverge (an embedded field) goes to compiled-go, with the reason") {
    const auto r = daemon.execute(session, kRunHeader + R"(type base struct {
	ID int `json:"id"`
}

type item struct {
	base
	Name string `json:"name"`
}

func run(ctx context.Context) (any, error) { return item{base{1}, "x"}, nil }
)", kAuto);
    CHECK(json_string(r, "runtime") == "compiled-go");
    CHECK(json_string(r, "runtime_reason").find("embedded field") != std::string::npos);
    CHECK(compact(r["result"]) == R"({"kind":"ok","value":{"id":1,"name":"x"}})");
  }
  SUBCASE("a compile error goes to the compiler, whose diagnostics are authoritative") {
    const auto r = daemon.execute(session, "package main\nfunc main() { x := 1 }\n", kAuto);
    CHECK(json_string(r, "runtime") == "compiled-go");
    CHECK(json_string(r, "status") == "compile_error");
    CHECK(json_string(r["diagnostics"][0], "message") == "declared and not used: x");
  }
  SUBCASE("a CPU-bound loop goes to compiled-go, with the estimate as the reason") {
    const auto r = daemon.execute(session, R"(package main

import "fmt"

func main() {
	const n = 3_000_000
	composite := make([]bool, n+1)
	count := 0
	for i := 2; i <= n; i++ {
		if !composite[i] {
			count++
			for j := i * 2; j <= n; j += i {
				composite[j] = true
			}
		}
	}
	fmt.Println(count)
}
)", kAuto);
    CHECK(json_string(r, "runtime") == "compiled-go");
    CHECK(json_string(r, "runtime_reason").find("CPU-bound") != std::string::npos);
    CHECK(json_string(r, "stdout") == "216816\n");
  }
  SUBCASE("a later edit that keeps the declined code goes to compiled-go without asking Yaegi") {
    const std::string counter = R"(func main() {
	total := 0
	for i := 0; i < 50_000_000; i++ {
		total += i & 3
	}
	fmt.Println(total)
}
)";
    const auto program = [&](const std::string& comment, const std::string& body) {
      return "package main\n\nimport \"fmt\"\n\n// " + comment + "\n" + body;
    };
    const auto first = daemon.execute(session, program("first", counter), kAuto);
    CHECK(json_string(first, "runtime") == "compiled-go");
    CHECK(json_string(first, "runtime_reason").find("CPU-bound") != std::string::npos);
    // One line edited outside the declaration the decline pointed at: the runner is not asked.
    const auto edited = daemon.execute(session, program("second", counter), kAuto);
    CHECK(json_string(edited, "runtime") == "compiled-go");
    CHECK(json_string(edited, "runtime_reason")
              .starts_with("yaegi declined the same code in main.go on an earlier call"));
    CHECK(json_string(edited, "runtime_reason").find("CPU-bound") != std::string::npos);
    CHECK(json_string(edited, "stdout") == "75000000\n");
    CHECK(edited["sandbox_requests"].GetUint() < first["sandbox_requests"].GetUint());
    // The declaration itself edited: the runner checks it again, and now accepts it.
    auto small = counter;
    small.replace(small.find("50_000_000"), 10, "50");
    const auto changed = daemon.execute(session, program("third", small), kAuto);
    CHECK(json_string(changed, "runtime") == "yaegi");
    CHECK(json_string(changed, "stdout") == "73\n");
    // Another session of the same owner remembers nothing of this one's declines.
    const auto other = daemon.open_session();
    const auto elsewhere = daemon.execute(other, program("fourth", counter), kAuto);
    CHECK(json_string(elsewhere, "runtime") == "compiled-go");
    CHECK(json_string(elsewhere, "runtime_reason").find("earlier call") == std::string::npos);
    CHECK(json_string(elsewhere, "runtime_reason").find("CPU-bound") != std::string::npos);
  }
  SUBCASE("a program compiled-go already built goes to its binary cache, not to Yaegi") {
    const std::string program =
        "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"built once\") }\n";
    const auto first = daemon.execute(session, program, kAuto);
    CHECK(json_string(first, "runtime") == "yaegi");  // never built: the interpreter
    const auto compiled = daemon.execute(session, program, R"("runtime": "compiled-go")");
    CHECK(json_string(compiled, "runtime") == "compiled-go");
    const auto again = daemon.execute(session, program, kAuto);
    CHECK(json_string(again, "runtime") == "compiled-go");
    CHECK(again["cache_hit"].GetBool());
    CHECK(json_string(again, "runtime_reason").find("binary cache") != std::string::npos);
    CHECK(json_string(again, "stdout") == "built once\n");
    // Another program is not in the cache: back to the interpreter.
    const auto other = daemon.execute(
        session, "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"other\") }\n", kAuto);
    CHECK(json_string(other, "runtime") == "yaegi");
  }
  SUBCASE("the store records the runtime that ran, and the stats count it") {
    daemon.execute(session, "package main\nfunc main() {}\n", kAuto);
    const auto stats = daemon.json(daemon.get("/v1/stats"));
    CHECK(compact(stats).find(R"("runtime":"yaegi")") != std::string::npos);
    CHECK(compact(stats).find(R"("runtime":"auto")") == std::string::npos);
  }
  SUBCASE("plugins lists every runtime, auto as the default") {
    const auto plugins = compact(daemon.json(daemon.get("/v1/plugins")));
    CHECK(plugins.find(R"({"name":"auto","available":true,"default":true,)") != std::string::npos);
    CHECK(plugins.find(R"("chooses":["yaegi","compiled-go"])") != std::string::npos);
    CHECK(plugins.find(R"({"name":"yaegi","available":true,"default":false,)") != std::string::npos);
  }
}

TEST_CASE("a configured runner that does not exist stops the daemon at start, naming the key") {
  DaemonFixture daemon({.empty_base_cache = true,
                        .yaegi_runner_binary = "/nonexistent/kode-gopher-yaegi"});
  std::string message;
  try {
    daemon.start();
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(message.find("Cannot find kode-gopher-yaegi") != std::string::npos);
  CHECK(message.find("[sandbox] yaegi_runner_binary") != std::string::npos);
}
