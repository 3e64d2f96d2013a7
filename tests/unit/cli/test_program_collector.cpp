// collect_program on real files in a scratch tree: keys, what is skipped, what is refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "cli_errors.hpp"
#include "program_collector.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using kg::cli::collect_program;
using kg::cli::collect_program_from_stream;
using kg::cli::ProgramFiles;
using kg::cli::ProgramLimits;
using kg::cli::UsageError;
using kg::cli_test::ScratchDir;

TEST_CASE("a directory gives its Go files, go.mod and go.sum keyed by relative path") {
  ScratchDir scratch;
  const fs::path root = scratch.path() / "prog";
  scratch.write("prog/main.go", "package main\n");
  scratch.write("prog/go.mod", "module example.com/prog\n");
  scratch.write("prog/go.sum", "sum\n");
  scratch.write("prog/lib/deep/util.go", "package deep\n");
  scratch.write("prog/README.md", "docs");
  scratch.write("prog/lib/notes.txt", "skip");
  scratch.write("prog/lib/x.gox", "skip");
  scratch.write("prog/.git/config.go", "hidden dir");
  scratch.write("prog/lib/.cache/c.go", "hidden dir");
  scratch.write("prog/.hidden.go", "hidden file");

  CHECK(collect_program(root.string()) ==
        ProgramFiles{{"go.mod", "module example.com/prog\n"},
                     {"go.sum", "sum\n"},
                     {"lib/deep/util.go", "package deep\n"},
                     {"main.go", "package main\n"}});
}

TEST_CASE("a single file is keyed by its base name") {
  ScratchDir scratch;
  const fs::path file = scratch.write("a/b/hello.go", "package main\nfunc main() {}\n");
  CHECK(collect_program(file.string()) ==
        ProgramFiles{{"hello.go", "package main\nfunc main() {}\n"}});
}

TEST_CASE("standard input becomes main.go") {
  std::istringstream in("package main\n");
  CHECK(collect_program_from_stream(in) == ProgramFiles{{"main.go", "package main\n"}});
}

TEST_CASE("a symlink that stays inside the directory is followed; one to a directory is not") {
  ScratchDir scratch;
  scratch.write("prog/main.go", "package main\n");
  scratch.write("prog/real/impl.go", "package real\n");
  fs::create_symlink("real/impl.go", scratch.path() / "prog/alias.go");
  fs::create_directories(scratch.path() / "prog/more");
  fs::create_directory_symlink("../real", scratch.path() / "prog/more/again");
  CHECK(collect_program((scratch.path() / "prog").string()) ==
        ProgramFiles{{"alias.go", "package real\n"},
                     {"main.go", "package main\n"},
                     {"real/impl.go", "package real\n"}});
}

TEST_CASE("a symlink to a file outside the directory is refused") {
  ScratchDir scratch;
  scratch.write("outside/secret.go", "package secret\n");
  scratch.write("prog/main.go", "package main\n");
  fs::create_directories(scratch.path() / "prog/sub");
  const fs::path target = scratch.path() / "outside/secret.go";
  fs::create_symlink(target, scratch.path() / "prog/sub/secret.go");
  const std::string root = (scratch.path() / "prog").string();
  CHECK_THROWS_WITH_AS(collect_program(root),
                       ("symlink \"sub/secret.go\" in \"" + root + "\" points to \"" +
                        target.string() +
                        "\", outside the program directory: copy the file in or remove the link")
                           .c_str(),
                       UsageError);
}

TEST_CASE("a symlink to a directory outside is refused, even though it would not be followed") {
  ScratchDir scratch;
  scratch.write("prog/main.go", "package main\n");
  fs::create_directories(scratch.path() / "elsewhere");
  fs::create_directory_symlink("../elsewhere", scratch.path() / "prog/vendored");
  const std::string root = (scratch.path() / "prog").string();
  CHECK_THROWS_WITH_AS(collect_program(root),
                       ("symlink \"vendored\" in \"" + root +
                        "\" points to \"../elsewhere\", outside the program directory: copy the "
                        "file in or remove the link")
                           .c_str(),
                       UsageError);
}

TEST_CASE("a broken symlink named like a Go file is refused; other links are ignored") {
  ScratchDir scratch;
  scratch.write("prog/main.go", "package main\n");
  fs::create_symlink("/etc/hostname", scratch.path() / "prog/README");
  fs::create_symlink("gone.go", scratch.path() / "prog/broken.go");
  const std::string root = (scratch.path() / "prog").string();
  CHECK_THROWS_WITH_AS(collect_program(root),
                       ("symlink \"broken.go\" in \"" + root +
                        "\" points to \"gone.go\", which does not exist: fix or remove the link")
                           .c_str(),
                       UsageError);
}

TEST_CASE("the total size is capped") {
  ScratchDir scratch;
  scratch.write("prog/a.go", std::string(600, 'a'));
  scratch.write("prog/b.go", std::string(600, 'b'));
  const std::string root = (scratch.path() / "prog").string();
  ProgramLimits limits;
  limits.max_total_bytes = 1024;
  CHECK_THROWS_WITH_AS(collect_program(root, limits),
                       ("\"" + root +
                        "\" holds more than 1 KiB of program files: point exec at the program's "
                        "own directory")
                           .c_str(),
                       UsageError);
  limits.max_total_bytes = 1200;
  CHECK(collect_program(root, limits).size() == 2);
}

TEST_CASE("the default size cap is 8 MiB, for a single file too") {
  ScratchDir scratch;
  const fs::path file = scratch.write("big.go", std::string((8u << 20) + 1, 'x'));
  CHECK_THROWS_WITH_AS(collect_program(file.string()),
                       ("\"" + file.string() +
                        "\" is larger than 8 MiB: a program sent to the daemon must stay under "
                        "that")
                           .c_str(),
                       UsageError);
  std::istringstream in(std::string((8u << 20) + 1, 'x'));
  CHECK_THROWS_WITH_AS(collect_program_from_stream(in),
                       "standard input is larger than 8 MiB: a program sent to the daemon must "
                       "stay under that",
                       UsageError);
}

TEST_CASE("the file count is capped") {
  ScratchDir scratch;
  for (int i = 0; i < 4; ++i) scratch.write("prog/f" + std::to_string(i) + ".go", "package x\n");
  const std::string root = (scratch.path() / "prog").string();
  ProgramLimits limits;
  limits.max_files = 3;
  CHECK_THROWS_WITH_AS(collect_program(root, limits),
                       ("\"" + root +
                        "\" has more than 3 program files (*.go, go.mod, go.sum): point exec at "
                        "the program's own directory")
                           .c_str(),
                       UsageError);
  limits.max_files = 4;
  CHECK(collect_program(root, limits).size() == 4);
}

TEST_CASE("a missing path and a directory without Go files are refused") {
  ScratchDir scratch;
  const std::string missing = (scratch.path() / "nope").string();
  CHECK_THROWS_WITH_AS(collect_program(missing),
                       ("\"" + missing +
                        "\" does not exist: give a .go file, a directory holding the program, or "
                        "- to read main.go from standard input")
                           .c_str(),
                       UsageError);
  scratch.write("docs/README.md", "no go here");
  const std::string docs = (scratch.path() / "docs").string();
  CHECK_THROWS_WITH_AS(collect_program(docs),
                       ("\"" + docs +
                        "\" has no .go files: point exec at a Go file or at the directory that "
                        "holds the program")
                           .c_str(),
                       UsageError);
}
