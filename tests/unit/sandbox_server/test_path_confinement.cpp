#include <doctest/doctest.h>

#include <fstream>

#include "path_confinement.hpp"
#include "scratch_directory.hpp"

using kg::sandbox::InvalidPathError;
using kg::sandbox::PathEscapeError;
using kg::sandbox::WorkdirConfinement;
using kg::sandbox::percent_decode;

TEST_CASE("percent_decode decodes escapes, %2F included, and keeps '+'") {
  CHECK(percent_decode("src%2Fmain.go") == "src/main.go");
  CHECK(percent_decode("a%2fb%20c+d") == "a/b c+d");
  CHECK(percent_decode("%C3%A9t%C3%A9") == "\xC3\xA9t\xC3\xA9");
  CHECK(percent_decode("plain") == "plain");
  CHECK(percent_decode("") == "");
}

TEST_CASE("percent_decode refuses invalid escapes and NUL") {
  CHECK_THROWS_WITH_AS(percent_decode("a%zzb"),
                       "Invalid percent escape \"%zz\" at position 1 of path \"a%zzb\": encode "
                       "'%' as %25",
                       InvalidPathError);
  CHECK_THROWS_WITH_AS(percent_decode("abc%2"),
                       "Invalid percent escape \"%2\" at position 3 of path \"abc%2\": encode '%' "
                       "as %25",
                       InvalidPathError);
  CHECK_THROWS_WITH_AS(percent_decode("x%"),
                       "Invalid percent escape \"%\" at position 1 of path \"x%\": encode '%' as "
                       "%25",
                       InvalidPathError);
  CHECK_THROWS_WITH_AS(percent_decode("a%00b"),
                       "Path \"a%00b\" contains an encoded NUL byte (%00), which no file name can "
                       "hold",
                       InvalidPathError);
}

TEST_CASE("WorkdirConfinement resolves paths inside the workdir") {
  kg::sandbox::testing::ScratchDirectory scratch;
  const auto workdir = scratch.path() / "app";
  std::filesystem::create_directories(workdir / "src");
  std::ofstream(workdir / "src" / "main.go") << "package main\n";
  const WorkdirConfinement confinement(workdir);
  CHECK(confinement.workdir() == workdir);

  SUBCASE("an existing file") {
    const auto resolved = confinement.resolve("src/main.go");
    CHECK(resolved.real_path == workdir / "src" / "main.go");
    CHECK(resolved.exists);
  }
  SUBCASE("the empty path is the workdir itself") {
    const auto resolved = confinement.resolve("");
    CHECK(resolved.real_path == workdir);
    CHECK(resolved.exists);
  }
  SUBCASE("a trailing slash") {
    CHECK(confinement.resolve("src/").real_path == workdir / "src");
  }
  SUBCASE("a nonexistent child of a nonexistent directory") {
    const auto resolved = confinement.resolve("new/dir/file.txt");
    CHECK(resolved.real_path == workdir / "new" / "dir" / "file.txt");
    CHECK_FALSE(resolved.exists);
  }
  SUBCASE("'..' that stays inside") {
    CHECK(confinement.resolve("src/../src/main.go").real_path == workdir / "src" / "main.go");
  }
  SUBCASE("an absolute path inside the workdir") {
    CHECK(confinement.resolve((workdir / "src").string()).real_path == workdir / "src");
  }
  SUBCASE("a symlink that stays inside") {
    std::filesystem::create_symlink("src", workdir / "link");
    CHECK(confinement.resolve("link/main.go").real_path == workdir / "src" / "main.go");
  }
}

TEST_CASE("WorkdirConfinement refuses every way out") {
  kg::sandbox::testing::ScratchDirectory scratch;
  const auto workdir = scratch.path() / "app";
  std::filesystem::create_directories(workdir);
  std::filesystem::create_directories(scratch.path() / "app2");
  std::ofstream(scratch.path() / "secret") << "x";
  const WorkdirConfinement confinement(workdir);
  const std::string outside = " outside the workdir " + workdir.string() +
                              ": use a path inside the workdir";

  CHECK_THROWS_WITH_AS(confinement.resolve("../secret"),
                       ("Path \"../secret\" resolves to " + (scratch.path() / "secret").string() +
                        "," + outside).c_str(),
                       PathEscapeError);
  CHECK_THROWS_WITH_AS(confinement.resolve("missing/../../secret"),
                       ("Path \"missing/../../secret\" resolves to " +
                        (scratch.path() / "secret").string() + "," + outside).c_str(),
                       PathEscapeError);
  CHECK_THROWS_WITH_AS(confinement.resolve("/etc/passwd"),
                       ("Path \"/etc/passwd\" resolves to /etc/passwd," + outside).c_str(),
                       PathEscapeError);
  // A sibling whose name starts with the workdir's name is still outside.
  CHECK_THROWS_AS(confinement.resolve("../app2"), PathEscapeError);

  std::filesystem::create_symlink(scratch.path(), workdir / "out");
  CHECK_THROWS_WITH_AS(confinement.resolve("out/secret"),
                       ("Path \"out/secret\" resolves to " + (scratch.path() / "secret").string() +
                        "," + outside).c_str(),
                       PathEscapeError);
  // Not yet existing below a link that leaves: the existing parent decides.
  CHECK_THROWS_AS(confinement.resolve("out/new/file"), PathEscapeError);
}

TEST_CASE("WorkdirConfinement reports a symlink loop as an invalid path") {
  kg::sandbox::testing::ScratchDirectory scratch;
  std::filesystem::create_symlink("loop", scratch.path() / "loop");
  const WorkdirConfinement confinement(scratch.path());
  CHECK_THROWS_WITH_AS(confinement.resolve("loop/x"),
                       "Cannot resolve path \"loop/x\": Too many levels of symbolic links",
                       InvalidPathError);
}

TEST_CASE("WorkdirConfinement needs an existing directory") {
  kg::sandbox::testing::ScratchDirectory scratch;
  const auto missing = scratch.path() / "missing";
  CHECK_THROWS_WITH_AS(WorkdirConfinement{missing},
                       ("Workdir " + missing.string() +
                        " cannot be used: No such file or directory (create it or pass another "
                        "--workdir)").c_str(),
                       std::runtime_error);
}
