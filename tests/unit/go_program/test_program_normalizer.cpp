#include <doctest/doctest.h>

#include "program_normalizer.hpp"

using kg::go_program::normalize_program;
using kg::plugin::InvalidInputError;
using kg::plugin::SourceFile;

namespace {
const std::vector<std::string> kOptions;  // no extra imports
const std::string kHello = "package main\n\nfunc main() { println(\"hi\") }\n";

std::string error_of(const std::vector<SourceFile>& files) {
  try {
    normalize_program(files, kOptions);
  } catch (const InvalidInputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a one-file program is built as it is, with the lockfile's go.mod") {
  const auto program = normalize_program({{"main.go", kHello}}, kOptions);
  CHECK(program.mode == kg::plugin::Mode::verbatim);
  CHECK_FALSE(program.user_go_mod);
  REQUIRE(program.files.size() == 1);
  CHECK(program.files[0].content == kHello);
}

TEST_CASE("a user go.mod is kept as it is") {
  const auto program =
      normalize_program({{"main.go", kHello}, {"go.mod", "module example.com/x\n\ngo 1.22\n"}}, kOptions);
  CHECK(program.user_go_mod);
  REQUIRE(program.files.size() == 2);
  CHECK(program.files[1].content == "module example.com/x\n\ngo 1.22\n");
}

TEST_CASE("helper packages live in subdirectories") {
  const auto program = normalize_program(
      {{"main.go", kHello}, {"greet/greet.go", "package greet\nfunc main() {}\n"}}, kOptions);
  CHECK(program.files.size() == 2);  // a func main in a helper package is not the entry's
}

TEST_CASE("path errors say what to change") {
  CHECK(error_of({{"../main.go", kHello}}) ==
        "file path \"../main.go\" has an empty, '.' or '..' segment; paths must stay inside the program");
  CHECK(error_of({{"/etc/main.go", kHello}}) ==
        "file path \"/etc/main.go\" is absolute; use a path relative to the program's root");
  CHECK(error_of({{"a//b.go", kHello}}) ==
        "file path \"a//b.go\" has an empty, '.' or '..' segment; paths must stay inside the program");
  CHECK(error_of({{"./main.go", kHello}}) ==
        "file path \"./main.go\" has an empty, '.' or '..' segment; paths must stay inside the program");
  CHECK(error_of({{"a\\b.go", kHello}}) ==
        "file path \"a\\b.go\" has a NUL or backslash; use '/'-separated relative paths");
  CHECK(error_of({{"", kHello}}) == "a file has an empty path; give every file a name");
  CHECK(error_of({{"main.go", kHello}, {"persist/x.go", "package persist\n"}}) ==
        "file path \"persist/x.go\": /app/persist is the session's scratch folder, kept across its "
        "calls (a program writes there itself); put helper packages in another folder");
  CHECK(error_of({{"main.go", kHello}, {"out/report.go", "package out\n"}}) ==
        "file path \"out/report.go\": /app/out is where a program leaves files for you, returned "
        "after the call (docs/mcp.md, \"Files out\"); put helper packages in another folder");
  CHECK(error_of({{"main.go", kHello}, {"outer/x.go", "package outer\n"}}) == "no error");
  // A NUL must not end the message early; control bytes are shown escaped.
  CHECK(error_of({{std::string("a\0b.go", 6), kHello}}) ==
        "file path \"a\\x00b.go\" has a NUL or backslash; use '/'-separated relative paths");
  CHECK(error_of({{".kode-gopher/result.json", "{}"}, {"main.go", kHello}}) ==
        "file path \".kode-gopher/result.json\" is inside .kode-gopher/, where kode-gopher writes "
        "the result; rename it");
  CHECK(error_of({{"a.go", kHello}, {"a.go", kHello}}) ==
        "file path \"a.go\" is sent more than once; send each file once");
}

TEST_CASE("names and paths longer than file systems allow are refused, the message cut short") {
  const std::string long_name = std::string(256, 'n') + ".go";
  const std::string message = error_of({{long_name, kHello}});
  CHECK(message == "file path \"" + long_name.substr(0, 100) + "\"… (259 bytes) has a name longer "
                   "than 255 bytes, more than file systems allow; use shorter names");
  std::string deep;
  while (deep.size() <= 1024) deep += "dir/";
  deep += "x.go";
  CHECK(error_of({{deep, kHello}}).find("is longer than 1024 bytes; use shorter paths") !=
        std::string::npos);
  CHECK(error_of({{std::string(255, 'n'), kHello}, {"main.go", kHello}}) == "no error");
}

TEST_CASE("entry package errors") {
  CHECK(error_of({}) == "no files were sent; send at least main.go");
  CHECK(error_of({{"lib/x.go", kHello}}) ==
        "no .go file at the root: the entry package's files must have paths without '/', e.g. \"main.go\"");
  CHECK(error_of({{"main.go", "// nothing\n"}}) ==
        "main.go has no package clause; start it with `package main`");
  CHECK(error_of({{"a.go", kHello}, {"b.go", "package other\n"}}) ==
        "root files declare different packages: a.go has `package main`, b.go has `package other`; "
        "use one package name for all root files");
  CHECK(error_of({{"main.go", "package main\nfunc run() {}\n"}}) ==
        "package main has no `func main()`; add one to a root file");
  CHECK(error_of({{"a.go", kHello}, {"b.go", "package main\n\n\nfunc main() {}\n"}}) ==
        "`func main` is declared more than once (a.go:3 and b.go:4); keep exactly one");
}

TEST_CASE("a snippet is wrapped: package clauses become main and kg_wrapper.go supplies main") {
  const std::string snippet =
      "\xEF\xBB\xBF// Package demo lists things.\r\n/* package x */ package demo\r\n\r\n"
      "import \"context\"\r\n\r\nfunc run(ctx context.Context) (any, error) { return helper(), nil }\r\n";
  const std::string helper = "package demo\n\n// run is not here\nfunc helper() string { return \"package demo\" }\n";
  const auto program = normalize_program(
      {{"snippet.go", snippet}, {"helper.go", helper}, {"util/util.go", "package util\n"}},
      {"cloud.google.com/go/storage"});
  CHECK(program.mode == kg::plugin::Mode::wrapped);
  REQUIRE(program.files.size() == 5);
  CHECK(program.files[0].content ==
        "\xEF\xBB\xBF// Package demo lists things.\r\n/* package x */ package main\r\n\r\n"
        "import \"context\"\r\n\r\nfunc run(ctx context.Context) (any, error) { return helper(), nil }\r\n");
  CHECK(program.files[1].content ==
        "package main\n\n// run is not here\nfunc helper() string { return \"package demo\" }\n");
  CHECK(program.files[2].content == "package util\n");  // helper packages keep their names
  CHECK(program.files[3].path == "kg_wrapper.go");
  CHECK(program.files[3].content.find("var entry func(kgcontext.Context) (any, error) = run") !=
        std::string::npos);
  CHECK(program.files[4].path == "kg_extra_imports.go");
  CHECK(program.files[4].content ==
        "// Code generated by kode-gopher. DO NOT EDIT.\n\npackage main\n\nimport (\n"
        "\t_ \"cloud.google.com/go/storage\"\n)\n");
}

TEST_CASE("snippet errors") {
  CHECK(error_of({{"a.go", "package demo\nfunc helper() {}\n"}}) ==
        "snippet package demo has no `func run`; declare `func run(ctx context.Context) (any, error)` "
        "in a root file");
  CHECK(error_of({{"a.go", "package demo\nfunc run() {}\n"}, {"b.go", "package demo\nfunc run() {}\n"}}) ==
        "`func run` is declared more than once (a.go:2 and b.go:2); keep exactly one");
  CHECK(error_of({{"a.go", "package demo\nfunc run() {}\nfunc main() {}\n"}}) ==
        "a snippet (package demo) must not declare `func main` (a.go:3); kode-gopher supplies main: "
        "declare `func run(ctx context.Context) (any, error)`, or make it a program with `package main`");
  // cgo: named before any build, in the file that imports "C", a helper package's too.
  CHECK(error_of({{"a.go", "package demo\n\n// #include <stdio.h>\nimport \"C\"\n"
                           "func run() {}\n"}}) ==
        "a.go:4: imports \"C\", but cgo is not available: kode-gopher builds with CGO_ENABLED=0 "
        "and sandboxes have no C compiler; use a pure-Go package instead");
  CHECK(error_of({{"main.go", kHello}, {"lib/c.go", "package lib\nimport (\n\t\"os\"\n\t\"C\"\n)\n"}})
            .starts_with("lib/c.go:4: imports \"C\", but cgo is not available"));
  // A run whose signature is surely wrong: named at the caller's own line, before any build.
  CHECK(error_of({{"helper.go", "package demo\nfunc helper() {}\n"},
                  {"main.go", "package demo\n\nimport \"context\"\n\nfunc run(ctx context.Context)\n"
                              "\t[]string {\n\treturn nil\n}\n"}}) ==
        "main.go:5: `func run(ctx context.Context) []string` does not have the signature a "
        "snippet's run needs: it returns one value, not two (a value and an error). Declare it as "
        "`func run(ctx context.Context) (any, error)` and return your value as the first result "
        "(it comes back JSON-encoded as result.value) with a nil error, or nil and an error; or "
        "make the code a program (package main with func main)");
  CHECK(error_of({{"main.go", "package demo\nimport \"context\"\nfunc run(ctx context.Context) "
                              "(any, error) { return 1, nil }\n"}}) == "no error");
  CHECK(error_of({{"main.go", kHello}, {"kg_wrapper.go", "package main\n"}}) ==
        "kg_wrapper.go is a name kode-gopher generates; rename your file");
  // cgo asked for through extra_imports: refused like `import "C"`, never dropped silently.
  try {
    normalize_program({{"main.go", kHello}}, {"fmt", "C"});
    FAIL("expected an error");
  } catch (const InvalidInputError& e) {
    CHECK(std::string(e.what()) ==
          "extra_imports: \"C\" is cgo, which is not available: kode-gopher builds with "
          "CGO_ENABLED=0 and sandboxes have no C compiler; leave it out and use a pure-Go "
          "package instead");
  }
  try {
    normalize_program({{"main.go", kHello}}, {"evil\"; import \"os"});
    FAIL("expected an error");
  } catch (const InvalidInputError& e) {
    CHECK(std::string(e.what()) ==
          "extra_imports: \"evil\"; import \"os\" is not a Go import path (e.g. \"cloud.google.com/go/storage\")");
  }
}
