#include <doctest/doctest.h>

#include "program_normalizer.hpp"

using kg::compiled_go::normalize_program;
using kg::plugin::InvalidInputError;
using kg::plugin::SourceFile;

namespace {
const kg::compiled_go::NormalizeOptions kOptions{"go1.26.8"};
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

TEST_CASE("a one-file program gets a generated go.mod") {
  const auto program = normalize_program({{"main.go", kHello}}, kOptions);
  CHECK(program.mode == kg::plugin::Mode::verbatim);
  CHECK_FALSE(program.user_go_mod);
  REQUIRE(program.files.size() == 2);
  CHECK(program.files[1].path == "go.mod");
  CHECK(program.files[1].content == "module kode_gopher_user\n\ngo 1.26\n");
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
  CHECK(program.files.size() == 3);  // a func main in a helper package is not the entry's
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
  CHECK(error_of({{"main.go", "package main\nfunc helper() {}\n"}}) ==
        "package main has no `func main()`; add one to a root file");
  CHECK(error_of({{"a.go", kHello}, {"b.go", "package main\n\n\nfunc main() {}\n"}}) ==
        "`func main` is declared more than once (a.go:3 and b.go:4); keep exactly one");
}
