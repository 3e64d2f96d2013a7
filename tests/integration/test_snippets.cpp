// docs/contracts.md §3 end to end: every mode, result kind, status and input error, through the real
// daemon, sandbox and Go toolchain, asserting the structured result exactly where it is exact.
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

// The table leaves trailing members at their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace {

struct Case {
  const char* name;
  std::map<std::string, std::string> files;
  std::string extra_members;  // more JSON members of the request, e.g. "\"timeout_ms\": 900"
  int http_status = 200;
  std::string status, mode, phase;
  int exit_code = 0;
  std::optional<std::string> result;  // the result object, compact JSON; nullopt: none
  std::string stdout_text;             // exact, unless contains is set
  std::string contains;                // a substring of stdout+stderr+warnings+error
};

std::string request_body(const Case& c) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartObject();
  for (const auto& [path, source] : c.files) {
    w.Key(path.c_str());
    w.String(source.c_str(), static_cast<rapidjson::SizeType>(source.size()));
  }
  w.EndObject();
  w.EndObject();
  std::string body = buffer.GetString();
  if (!c.extra_members.empty()) body = body.substr(0, body.size() - 1) + "," + c.extra_members + "}";
  return body;
}

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  value.Accept(w);
  return buffer.GetString();
}

const std::string kRunHeader = "package demo\n\nimport \"context\"\n\n";

std::vector<Case> cases() {
  std::vector<Case> all;
  auto snippet = [](std::string body) { return kRunHeader + body; };
  all.push_back({"program: hello", {{"main.go", "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\") }\n"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "hi\n"});
  all.push_back({"program: os.Exit(3)", {{"main.go", "package main\nimport \"os\"\nfunc main() { os.Exit(3) }\n"}},
                 "", 200, "runtime_error", "verbatim", "run", 3, std::nullopt, ""});
  all.push_back({"program: panic", {{"main.go", "package main\nfunc main() { panic(\"boom\") }\n"}},
                 "", 200, "panic", "verbatim", "run", 2, std::nullopt, "", "panic: boom"});
  all.push_back({"program: compile error", {{"prog.go", "package main\nfunc main() { x := 1 }\n"}},
                 "", 200, "compile_error", "verbatim", "build", 1, std::nullopt, "",
                 "prog.go:2:15: declared and not used: x"});
  all.push_back({"program: writes its own result", {{"main.go", R"(package main
import "os"
func main() {
	os.MkdirAll("/app/.kode-gopher", 0o755)
	os.WriteFile("/app/.kode-gopher/result.json", []byte(`{"kind":"ok","value":{"mine":true}}`), 0o644)
}
)"}},
                 "", 200, "ok", "verbatim", "run", 0, R"({"kind":"ok","value":{"mine":true}})", ""});
  all.push_back({"program: killed by a signal", {{"main.go", "package main\nimport \"syscall\"\nfunc main() { syscall.Kill(syscall.Getpid(), syscall.SIGKILL) }\n"}},
                 "", 200, "killed", "verbatim", "run", 137, std::nullopt, ""});
  all.push_back({"program: timeout", {{"main.go", "package main\nimport \"time\"\nfunc main() { time.Sleep(time.Hour) }\n"}},
                 "\"timeout_ms\": 800", 200, "timeout", "verbatim", "run", 137, std::nullopt, "",
                 "the program ran longer than 800 ms and was stopped"});
  all.push_back({"program: long output keeps head and tail", {{"main.go", R"(package main
import ("fmt"; "strings")
func main() { fmt.Print("START" + strings.Repeat("x", 100000) + "END") }
)"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "", "bytes elided] ..."});
  all.push_back({"program: output over the limit", {{"main.go", R"(package main
import ("os"; "strings")
func main() { os.Stdout.WriteString(strings.Repeat("y", 5<<20)) }
)"}},
                 "", 200, "output_limit", "verbatim", "run", 0, std::nullopt, "",
                 "bytes from its middle were discarded"});
  all.push_back({"snippet: ok map", {{"snippet.go", snippet("func run(ctx context.Context) (any, error) {\n\treturn map[string]any{\"n\": 42, \"s\": \"x\"}, nil\n}\n")}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":{"n":42,"s":"x"}})", ""});
  all.push_back({"snippet: ok string", {{"main.go", snippet("func run(ctx context.Context) (any, error) { return \"hello\", nil }\n")}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"hello"})", ""});
  all.push_back({"snippet: ok nil", {{"main.go", snippet("func run(ctx context.Context) (any, error) { return nil, nil }\n")}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":null})", ""});
  all.push_back({"snippet: error", {{"main.go", kRunHeader + "import \"errors\"\n\nfunc run(ctx context.Context) (any, error) { return nil, errors.New(\"nope\") }\n"}},
                 "", 200, "runtime_error", "wrapped", "run", 1, R"({"kind":"error","message":"nope"})", ""});
  all.push_back({"snippet: panic", {{"main.go", snippet("func run(ctx context.Context) (any, error) { panic(\"kaboom\") }\n")}},
                 "", 200, "panic", "wrapped", "run", 1, std::nullopt, ""});
  all.push_back({"snippet: marshal_error", {{"main.go", snippet("func run(ctx context.Context) (any, error) { return make(chan int), nil }\n")}},
                 "", 200, "runtime_error", "wrapped", "run", 1,
                 R"({"kind":"marshal_error","message":"json: unsupported type: chan int","type":"chan int"})", ""});
  all.push_back({"snippet: compile error points into the user's file", {{"query.go", snippet("func run(ctx context.Context) (any, error) {\n\treturn missing(), nil\n}\n")}},
                 "", 200, "compile_error", "wrapped", "build", 1, std::nullopt, "", "query.go:6:9: undefined: missing"});
  // A signature surely wrong is refused before the build, naming the caller's line.
  all.push_back({"invalid: wrong run signature", {{"main.go", "package demo\n\nfunc run() error { return nil }\n"}},
                 "", 400, "", "", "", 0, std::nullopt, "",
                 "main.go:3: `func run() error` does not have the signature a snippet's run needs: "
                 "it takes 0 parameters, not one context.Context"});
  // One the check cannot judge (a type name might be an alias of any) is the compiler's, in
  // the wrapper, with a warning that it is about the caller's run.
  all.push_back({"snippet: run returning a named type, not any", {{"main.go", kRunHeader + "type Result interface{}\n\nfunc run(ctx context.Context) (Result, error) { return nil, nil }\n"}},
                 "", 200, "compile_error", "wrapped", "build", 1, std::nullopt, "",
                 "the error in kg_wrapper.go (the main kode-gopher generates around a snippet) is about your func run"});
  all.push_back({"snippet: prints and returns", {{"main.go", kRunHeader + "import \"fmt\"\n\nfunc run(ctx context.Context) (any, error) { fmt.Println(\"side\"); return 7, nil }\n"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":7})", "side\n"});
  all.push_back({"snippet: its own result.json wins", {{"main.go", kRunHeader + R"(import "os"

func run(ctx context.Context) (any, error) {
	os.MkdirAll("/app/.kode-gopher", 0o755)
	os.WriteFile("/app/.kode-gopher/result.json", []byte(`{"kind":"ok","value":"mine"}`), 0o644)
	return "wrapper's", nil
}
)"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"mine"})", ""});
  all.push_back({"snippet: two root files", {{"a.go", snippet("func run(ctx context.Context) (any, error) { return helper(), nil }\n")},
                                             {"b.go", "package demo\n\nfunc helper() int { return 5 }\n"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":5})", ""});
  all.push_back({"snippet: two helper packages", {{"main.go", R"(package demo

import (
	"context"

	"kode_gopher_user/calc"
	"kode_gopher_user/greet"
)

func run(ctx context.Context) (any, error) { return greet.Hello(calc.Sum(2, 3)), nil }
)"},
                                                  {"greet/greet.go", "package greet\n\nimport \"fmt\"\n\nfunc Hello(n int) string { return fmt.Sprintf(\"hello %d\", n) }\n"},
                                                  {"calc/calc.go", "package calc\n\nfunc Sum(a, b int) int { return a + b }\n"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"hello 5"})", ""});
  all.push_back({"snippet: BOM, CRLF and a build-tag comment", {{"main.go", "\xEF\xBB\xBF//go:build linux\r\n\r\n// Package demo.\r\npackage demo\r\n\r\nimport \"context\"\r\n\r\nfunc run(ctx context.Context) (any, error) { return \"crlf\", nil }\r\n"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"crlf"})", ""});
  all.push_back({"snippet: 'package' and 'func run' in strings, a method named run", {{"main.go", R"(/* package fake */
package demo

import "context"

type T struct{}

func (T) run() string { return "func run(" }

var s = "package main\nfunc main() {}"

func run(ctx context.Context) (any, error) { return T{}.run() + s[:7], nil }
)"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"func run(package"})", ""});
  all.push_back({"snippet: extra_imports", {{"main.go", snippet("func run(ctx context.Context) (any, error) { return 1, nil }\n")}},
                 "\"extra_imports\": [\"encoding/csv\", \"time/tzdata\"]", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":1})", ""});
  all.push_back({"snippet: the caller's own go.mod", {{"go.mod", "module example.com/mine\n\ngo 1.24\n"},
                                                       {"main.go", "package demo\n\nimport (\n\t\"context\"\n\n\t\"example.com/mine/util\"\n)\n\nfunc run(ctx context.Context) (any, error) { return util.Name(), nil }\n"},
                                                       {"util/util.go", "package util\n\nfunc Name() string { return \"mine\" }\n"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"mine"})", ""});
  all.push_back({"program: a go.sum without its go.mod gives way to the lockfile's",
                 {{"go.sum", "not a go.sum\n"}, {"main.go", "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"sum\") }\n"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "sum\n"});
  all.push_back({"snippet: a curated Google Cloud package builds offline", {{"main.go", R"(package demo

import (
	"context"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
)

func run(ctx context.Context) (any, error) {
	client, err := storage.NewClient(ctx, option.WithoutAuthentication())
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return "storage client ready", nil
}
)"}},
                 "", 200, "ok", "wrapped", "run", 0, R"({"kind":"ok","value":"storage client ready"})", ""});
  all.push_back({"program: an invalid result.json is a warning", {{"main.go", R"(package main
import "os"
func main() {
	os.MkdirAll("/app/.kode-gopher", 0o755)
	os.WriteFile("/app/.kode-gopher/result.json", []byte(`{"kind":`), 0o644)
}
)"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "", "result.json is not valid JSON"});
  all.push_back({"program: a result.json over 256 KiB is a warning", {{"main.go", R"(package main
import ("os"; "strings")
func main() {
	os.MkdirAll("/app/.kode-gopher", 0o755)
	os.WriteFile("/app/.kode-gopher/result.json", []byte(`{"kind":"ok","value":"`+strings.Repeat("x", 300<<10)+`"}`), 0o644)
}
)"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "",
                 "result.json was not read: \\\".kode-gopher/result.json\\\" is larger than 262144 bytes"});
  all.push_back({"program: a result.json linking out of /app is a warning", {{"main.go", R"(package main
import "os"
func main() {
	os.MkdirAll("/app/.kode-gopher", 0o755)
	os.Symlink("/etc/passwd", "/app/.kode-gopher/result.json")
}
)"}},
                 "", 200, "ok", "verbatim", "run", 0, std::nullopt, "", "result.json was not read: "});
  all.push_back({"invalid: snippet without run", {{"main.go", "package demo\n\nfunc helper() {}\n"}}, "", 400, "", "", "", 0,
                 std::nullopt, "", "snippet package demo has no `func run`"});
  all.push_back({"invalid: snippet with main", {{"main.go", "package demo\nfunc run() {}\nfunc main() {}\n"}}, "", 400, "", "", "", 0,
                 std::nullopt, "", "must not declare `func main`"});
  all.push_back({"invalid: two package names", {{"a.go", "package a\n"}, {"b.go", "package b\n"}}, "", 400, "", "", "", 0,
                 std::nullopt, "", "a.go has `package a`, b.go has `package b`"});
  all.push_back({"invalid: path escape", {{"../x.go", "package main\n"}}, "", 400, "", "", "", 0,
                 std::nullopt, "", "paths must stay inside the program"});
  all.push_back({"invalid: extra import", {{"main.go", "package main\nfunc main() {}\n"}}, "\"extra_imports\": [\"a b\"]", 400, "", "", "", 0,
                 std::nullopt, "", "is not a Go import path"});
  all.push_back({"invalid: code and files", {{"main.go", "package main\n"}}, "\"code\": \"package main\"", 400, "", "", "", 0,
                 std::nullopt, "", "send exactly one of"});
  return all;
}

}  // namespace

TEST_CASE("snippets, programs and results: the table") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  for (const auto& c : cases()) {
    CAPTURE(c.name);
    const auto response = daemon.post("/v1/sessions/" + session + "/execute", request_body(c));
    INFO("answer: " << response.body);
    REQUIRE(response.status == c.http_status);
    if (c.http_status != 200) {
      CHECK(response.body.find(c.contains) != std::string::npos);
      continue;
    }
    const auto r = daemon.json(response);
    CHECK(json_string(r, "status") == c.status);
    CHECK(json_string(r, "mode") == c.mode);
    CHECK(json_string(r, "phase") == c.phase);
    CHECK(r["exit_code"].GetInt() == c.exit_code);
    // A notice of the build path taken is listed with the warnings but is not one.
    bool warned = false;
    if (r.HasMember("warnings")) {
      for (const auto& w : r["warnings"].GetArray()) {
        warned = warned || !std::string(w.GetString()).starts_with("built with go build, not the fast path: ");
      }
    }
    CHECK(r["is_error"].GetBool() == (c.status != "ok" || c.exit_code != 0 ||
                                      (c.result && c.result->find("\"kind\":\"ok\"") == std::string::npos) ||
                                      warned));
    if (c.result) {
      REQUIRE(r.HasMember("result"));
      CHECK(compact(r["result"]) == *c.result);
    }
    if (c.contains.empty()) {
      CHECK(json_string(r, "stdout") == c.stdout_text);
    } else {
      std::string everything = json_string(r, "stdout") + json_string(r, "stderr");
      if (r.HasMember("warnings")) everything += compact(r["warnings"]);
      CHECK(everything.find(c.contains) != std::string::npos);
    }
  }
}

TEST_CASE("a panicking snippet reports the panic with its stack") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto r = daemon.execute(session, "package demo\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) { panic(\"kaboom\") }\n");
  CHECK(json_string(r, "status") == "panic");
  REQUIRE(r.HasMember("result"));
  CHECK(json_string(r["result"], "kind") == "panic");
  CHECK(json_string(r["result"], "message") == "kaboom");
  CHECK(json_string(r["result"], "stack").find("main.run(") != std::string::npos);
}

TEST_CASE("an identical resubmission is a binary cache hit; an edit is not") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const std::string source = "package demo\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) { return \"cached?\", nil }\n";
  const auto first = daemon.execute(session, source);
  CHECK_FALSE(first["cache_hit"].GetBool());
  CHECK(first["build_ms"].GetInt() > 0);
  const auto second = daemon.execute(session, source);
  CHECK(second["cache_hit"].GetBool());
  CHECK(second["build_ms"].GetInt() == 0);
  CHECK(compact(second["result"]) == R"({"kind":"ok","value":"cached?"})");
  // A build takes three sandbox requests (replace /app, build, run + result.json); a hit two.
  CHECK(first["sandbox_requests"].GetInt() == 3);
  CHECK(second["sandbox_requests"].GetInt() == 2);
  for (const auto* call : {&first, &second}) {
    const auto& t = (*call)["timings_us"];
    CHECK(t["total"].GetUint64() / 1000 == (*call)["duration_ms"].GetUint64());
    CHECK(t["run"].GetUint64() / 1000 == (*call)["run_ms"].GetUint64());
    CHECK(t["run"].GetUint64() > 0);
    CHECK(t["sandbox"].GetUint64() > 0);
    CHECK(t["queue"].GetUint64() + t["setup"].GetUint64() + t["sandbox"].GetUint64() +
              t["daemon"].GetUint64() == t["total"].GetUint64());
  }
  // Another session (another sandbox) of the same daemon shares the cache.
  const auto other = daemon.open_session();
  CHECK(daemon.execute(other, source)["cache_hit"].GetBool());
  const auto edited = daemon.execute(session, source + "\n// edited\n");
  CHECK_FALSE(edited["cache_hit"].GetBool());
}

TEST_CASE("an import outside the curated lockfile triggers one go mod tidy") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const std::string source = R"(package demo

import (
	"context"

	"github.com/dustin/go-humanize"
)

func run(ctx context.Context) (any, error) { return humanize.Bytes(82854982), nil }
)";
  const auto r = daemon.execute(session, source);
  CHECK(json_string(r, "status") == "ok");
  CHECK(r["tidied"].GetBool());
  REQUIRE(r.HasMember("result"));
  CHECK(compact(r["result"]) == R"({"kind":"ok","value":"83 MB"})");
  // The same program again is a binary cache hit: no second tidy.
  const auto again = daemon.execute(session, source);
  CHECK(again["cache_hit"].GetBool());

  const auto missing = daemon.execute(session, R"(package demo

import (
	"context"

	"example.invalid/no/such/module"
)

func run(ctx context.Context) (any, error) { return module.X, nil }
)");
  CHECK(json_string(missing, "status") == "compile_error");
  CHECK(missing["tidied"].GetBool());
  REQUIRE(missing.HasMember("warnings"));
  // The import tidy could not resolve is named, read from the go command's output.
  const auto& warnings = missing["warnings"];
  REQUIRE(warnings.Size() == 2);
  CHECK(std::string(warnings[0].GetString())
            .starts_with("go mod tidy could not resolve the import "
                         "\"example.invalid/no/such/module\" (the go command's words are in "
                         "stderr); the program was not built. Check each such import path"));
  CHECK(std::string(warnings[1].GetString()) ==
        "built with go build, not the fast path: the import \"example.invalid/no/such/module\" "
        "is not among the prebuilt standard and curated packages");
  CHECK(json_string(missing, "stderr").find("example.invalid/no/such/module") != std::string::npos);
}
