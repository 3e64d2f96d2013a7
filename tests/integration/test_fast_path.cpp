// compiled-go's fast path (issue 15) against go build, through two real daemons on the shared
// prewarmed cache: one with the fast path (the default), one with [compiled-go] fast_path =
// false. The same programs, snippets, helper packages, curated SDK imports and compile errors
// must give the same result either way; what the fast path does not serve must go to go build
// with a warning that says why, and then give go build's result too.
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::DaemonFixtureOptions;
using kg::test::json_string;

// Options name only the members a test changes.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace {

using Files = std::map<std::string, std::string>;

constexpr const char* kFallbackWarning = "built with go build, not the fast path: ";

std::string request_body(const Files& files) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("files");
  w.StartObject();
  for (const auto& [path, source] : files) {
    w.Key(path.c_str());
    w.String(source.c_str(), static_cast<rapidjson::SizeType>(source.size()));
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  value.Accept(w);
  return buffer.GetString();
}

// What must be the same whichever way the program was built. Addresses in a panic's trace
// differ from run to run, so they are masked.
struct Outcome {
  std::string status, phase, mode, stdout_text, stderr_text, diagnostics, result;
  int exit_code = 0;
  bool is_error = false;
  std::vector<std::string> warnings;  // without the fast path's fallback warning
  std::string fallback;               // the fallback warning, if any

  bool operator==(const Outcome&) const = default;
};

std::string member_text(const rapidjson::Document& r, const char* name) {
  return r.HasMember(name) ? compact(r[name]) : "";
}

Outcome outcome_of(const rapidjson::Document& r) {
  static const std::regex address("0x[0-9a-f]+");
  Outcome o;
  o.status = json_string(r, "status");
  o.phase = json_string(r, "phase");
  o.mode = json_string(r, "mode");
  o.exit_code = r.HasMember("exit_code") ? r["exit_code"].GetInt() : -1;
  o.is_error = r.HasMember("is_error") && r["is_error"].GetBool();
  o.stdout_text = json_string(r, "stdout");
  o.stderr_text = std::regex_replace(json_string(r, "stderr"), address, "0x?");
  o.diagnostics = member_text(r, "diagnostics");
  o.result = member_text(r, "result");
  if (r.HasMember("warnings")) {
    for (const auto& w : r["warnings"].GetArray()) {
      const std::string text = w.GetString();
      if (text.starts_with(kFallbackWarning)) {
        o.fallback = text;
      } else {
        o.warnings.push_back(text);
      }
    }
  }
  return o;
}

std::string describe(const Outcome& o) {
  std::string warnings;
  for (const auto& w : o.warnings) warnings += "\n    " + w;
  return "status " + o.status + ", phase " + o.phase + ", mode " + o.mode + ", exit " +
         std::to_string(o.exit_code) + (o.is_error ? ", is_error" : "") + "\n  stdout: " + o.stdout_text + "\n  stderr: " +
         o.stderr_text + "\n  diagnostics: " + o.diagnostics + "\n  result: " + o.result +
         "\n  warnings:" + warnings + "\n  fallback: " + o.fallback;
}

// Both daemons, started once for the whole file: each case builds in both.
struct Daemons {
  DaemonFixture fast;
  DaemonFixture go_build{DaemonFixtureOptions{.extra_sections = "[compiled-go]\nfast_path = false\n"}};
  std::string fast_session, go_build_session;

  Daemons() {
    fast.start();
    go_build.start();
    fast_session = fast.open_session();
    go_build_session = go_build.open_session();
  }

  std::pair<Outcome, Outcome> run(const Files& files) {
    const auto body = request_body(files);
    const auto a = fast.post("/v1/sessions/" + fast_session + "/execute", body);
    const auto b = go_build.post("/v1/sessions/" + go_build_session + "/execute", body);
    REQUIRE(a.status == 200);
    REQUIRE(b.status == 200);
    return {outcome_of(fast.json(a)), outcome_of(go_build.json(b))};
  }
};

Daemons& daemons() {
  static Daemons instance;
  return instance;
}

const std::string kRunHeader = "package demo\n\nimport \"context\"\n\n";

const std::map<std::string, Files> kSameBothWays = {
    {"a hello program", {{"main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"}}},
    {"a snippet's value",
     {{"main.go", kRunHeader + "func run(ctx context.Context) (any, error) {\n\treturn map[string]any{\"n\": 42}, nil\n}\n"}}},
    {"a snippet with a helper package",
     {{"main.go", kRunHeader + "import \"kode_gopher_user/shapes\"\n\nfunc run(ctx context.Context) (any, error) { return shapes.Area(3, 4), nil }\n"},
      {"shapes/area.go", "package shapes\n\nimport \"kode_gopher_user/shapes/units\"\n\nfunc Area(w, h int) string { return units.Square(w * h) }\n"},
      {"shapes/units/units.go", "package units\n\nimport \"strconv\"\n\nfunc Square(n int) string { return strconv.Itoa(n) + \" m²\" }\n"}}},
    {"the curated storage SDK, and the build info it is linked with",
     {{"main.go", R"(package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
)

func main() {
	client, err := storage.NewClient(context.Background(), option.WithoutAuthentication())
	fmt.Println(client != nil, err)
	info, _ := debug.ReadBuildInfo()
	fmt.Print(info)
}
)"}}},
    {"a curated Kubernetes import",
     {{"main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\nfunc main() { fmt.Println(metav1.ObjectMeta{Name: \"x\"}.Name) }\n"}}},
    {"a panic's trace",
     {{"main.go", "package main\n\nfunc main() {\n\tvar m map[string]int\n\tm[\"x\"] = 1\n}\n"}}},
    {"compile errors in the main package, with positions",
     {{"main.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(undefinedName)\n\tx := 1\n}\n"}}},
    {"a compile error in a helper package",
     {{"main.go", "package main\n\nimport \"kode_gopher_user/util\"\n\nfunc main() { util.Do() }\n"},
      {"util/util.go", "package util\n\nfunc Do() { return 1 }\n"}}},
    {"a syntax error", {{"main.go", "package main\n\nfunc main() {\n\tx := \n}\n"}}},
    // A named result type might be an alias, so the snippet check leaves it to the compiler
    // (a surely wrong one, such as a missing result, is refused before any build).
    {"a snippet whose run returns a named type, not any",
     {{"main.go", kRunHeader + "type answer int\n\n"
                               "func run(ctx context.Context) (answer, error) { return 0, nil }\n"}}},
};

// Programs the fast path leaves to go build, and the words its warning must use.
const std::map<std::string, std::pair<Files, std::string>> kDeclined = {
    {"an embedded file",
     {{{"main.go", "package main\n\nimport _ \"embed\"\n\n//go:embed greeting.txt\nvar greeting string\n\nfunc main() { print(greeting) }\n"},
       {"greeting.txt", "hi\n"}},
      "embeds"}},
    {"a build constraint",
     {{{"main.go", "package main\n\nfunc main() { println(\"main\") }\n"},
       {"other.go", "//go:build ignore\n\npackage main\n\nfunc unused() {}\n"}},
      "build constraints"}},
    {"a //go:debug directive",
     {{{"main.go", "//go:debug panicnil=1\npackage main\n\nfunc main() { println(\"x\") }\n"}}, "//go:debug"}},
    {"a link error (reported by go build)",
     {{{"main.go", "package main\n\nimport _ \"unsafe\"\n\n//go:linkname missing kode_gopher_user/nothing.here\nfunc missing()\n\nfunc main() { missing() }\n"}},
      "linker failed"}},
    {"an internal package of the standard library",
     {{{"main.go", "package main\n\nimport _ \"internal/abi\"\n\nfunc main() {}\n"}}, "internal/abi"}},
};

}  // namespace

TEST_CASE("fast path: the same results as go build, with no fallback") {
  auto& d = daemons();
  for (const auto& [name, files] : kSameBothWays) {
    CAPTURE(name);
    const auto [fast, go_build] = d.run(files);
    INFO("fast path:\n  " << describe(fast) << "\ngo build:\n  " << describe(go_build));
    CHECK(fast.fallback.empty());
    CHECK(fast == go_build);
  }
}

TEST_CASE("fast path: what it does not serve goes to go build, saying why, with go build's result") {
  auto& d = daemons();
  for (const auto& [name, declined] : kDeclined) {
    CAPTURE(name);
    const auto& [files, reason] = declined;
    auto [fast, go_build] = d.run(files);
    INFO("fast path:\n  " << describe(fast) << "\ngo build:\n  " << describe(go_build));
    CHECK(fast.fallback.find(reason) != std::string::npos);
    fast.fallback.clear();
    CHECK(fast == go_build);
  }
}

TEST_CASE("fast path: a program with its own go.mod is built by go build, which the result says") {
  auto& d = daemons();
  const Files files = {{"go.mod", "module example.com/own\n\ngo 1.24\n"},
                       {"main.go", "package main\n\nfunc main() { println(\"own\") }\n"}};
  const auto [fast, go_build] = d.run(files);
  INFO("fast path:\n  " << describe(fast));
  CHECK(fast.status == "ok");
  CHECK_FALSE(fast.is_error);  // the fallback is a notice, not a sign that anything went wrong
  CHECK(fast.fallback.find("its own go.mod") != std::string::npos);
  CHECK(go_build.fallback.empty());  // with the fast path off, nothing to explain
}

TEST_CASE("fast path: an unknown value of [compiled-go] fast_path keeps the plugin out, saying why") {
  DaemonFixture daemon(DaemonFixtureOptions{.extra_sections = "[compiled-go]\nfast_path = maybe\n"});
  daemon.start();
  const auto plugins = compact(daemon.json(daemon.get("/v1/plugins")));
  CAPTURE(plugins);
  CHECK(plugins.find("{\"name\":\"compiled-go\",\"kind\"") == std::string::npos);
  std::ifstream in(daemon.dir() + "/daemon.log");
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(log.find("[compiled-go] fast_path must be true or false, got \"maybe\"") != std::string::npos);
}
