#include <doctest/doctest.h>

#include "go_source_scanner.hpp"

using kg::go_program::outline_go_file;

TEST_CASE("package clause after comments, build tags, BOM and CRLF") {
  const auto outline = outline_go_file(
      "\xEF\xBB\xBF//go:build linux\r\n\r\n/* package fake */\r\n// package nope\r\npackage demo\r\n"
      "\r\nfunc run() {}\r\n");
  REQUIRE(outline.package_name);
  CHECK(*outline.package_name == "demo");
  CHECK(outline.package_line == 5);
  REQUIRE(outline.functions.size() == 1);
  CHECK(outline.functions[0].name == "run");
  CHECK(outline.functions[0].line == 7);
}

TEST_CASE("no package clause") {
  CHECK_FALSE(outline_go_file("// just a comment\nfunc main() {}\n").package_name);
  CHECK_FALSE(outline_go_file("").package_name);
}

TEST_CASE("methods, literals and nested funcs are not top-level functions") {
  const auto outline = outline_go_file(R"(package main

import "fmt"

type T struct{}

func (t T) main() {}
func (t *T) run(x int) {}

var s = "func main() {}"
var r = `
func main() {
`
var c = '"'

func helper() {
	f := func() {}
	_ = f
	fmt.Println("func main")
}

func main() { /* func run() */ }
)");
  REQUIRE(outline.functions.size() == 2);
  CHECK(outline.functions[0].name == "helper");
  CHECK(outline.functions[1].name == "main");
  CHECK(outline.functions[1].line == 22);
}

TEST_CASE("generic functions are found by name") {
  const auto outline = outline_go_file("package p\nfunc Map[T any](x T) T { return x }\nfunc run() {}\n");
  REQUIRE(outline.functions.size() == 2);
  CHECK(outline.functions[0].name == "Map");
  CHECK(outline.functions[1].name == "run");
}

TEST_CASE("import paths: single, grouped, named, dot and blank, raw strings; not in strings or comments") {
  const auto outline = outline_go_file(R"(package main

// import "commented"
import "fmt"
import (
	"context"
	gcs "cloud.google.com/go/storage"
	. "math"
	_ `embed`
)
import "C"

var s = "import \"notreal\""

func main() { fmt.Println(s) }
)");
  REQUIRE(outline.imports.size() == 6);
  CHECK(outline.imports[0].path == "fmt");
  CHECK(outline.imports[0].line == 4);
  CHECK(outline.imports[1].path == "context");
  CHECK(outline.imports[2].path == "cloud.google.com/go/storage");
  CHECK(outline.imports[3].path == "math");
  CHECK(outline.imports[4].path == "embed");
  CHECK(outline.imports[5].path == "C");
  CHECK(outline.imports[5].line == 11);
  REQUIRE(outline.functions.size() == 1);
  CHECK(outline.functions[0].name == "main");
}
