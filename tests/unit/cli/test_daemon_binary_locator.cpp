// find_daemon_binary's search order against fake executables in a scratch tree.
#include <doctest/doctest.h>

#include <filesystem>

#include "cli_errors.hpp"
#include "daemon_binary_locator.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using kg::cli::DaemonSearchPlaces;
using kg::cli::DaemonUnavailableError;
using kg::cli::find_daemon_binary;
using kg::cli_test::ScratchDir;

namespace {

std::string make_executable(const ScratchDir& scratch, const std::string& relative) {
  const fs::path file = scratch.write(relative, "#!/bin/sh\n");
  fs::permissions(file, fs::perms::owner_all);
  return file.string();
}

}  // namespace

TEST_CASE("the search goes env, next to the exe, the build tree, then PATH") {
  ScratchDir scratch;
  const std::string root = scratch.path().string();
  const std::string override_binary = make_executable(scratch, "custom/my-gopherd");
  const std::string beside = make_executable(scratch, "install/bin/kode-gopherd");
  const std::string build_tree = make_executable(scratch, "build/daemon/kode-gopherd");
  const std::string on_path = make_executable(scratch, "path2/kode-gopherd");
  make_executable(scratch, "path1/not-the-daemon");

  DaemonSearchPlaces places;
  places.override_path = override_binary;
  places.own_executable = root + "/install/bin/kode-gopher";
  places.path_variable = root + "/path1::" + root + "/path2";
  CHECK(find_daemon_binary(places) == override_binary);

  places.override_path = "";  // set but empty counts as unset
  CHECK(find_daemon_binary(places) == beside);

  places.own_executable = root + "/build/cli/kode-gopher";
  CHECK(find_daemon_binary(places) == build_tree);

  places.override_path.reset();
  places.own_executable = root + "/elsewhere/kode-gopher";
  CHECK(find_daemon_binary(places) == on_path);
}

TEST_CASE("a file that is not executable is passed over") {
  ScratchDir scratch;
  const std::string root = scratch.path().string();
  scratch.write("bin/kode-gopherd", "not executable");
  const std::string on_path = make_executable(scratch, "path/kode-gopherd");
  DaemonSearchPlaces places;
  places.own_executable = root + "/bin/kode-gopher";
  places.path_variable = root + "/path";
  CHECK(find_daemon_binary(places) == on_path);
}

TEST_CASE("a KODE_GOPHERD that is not an executable file is an error, not a fallback") {
  ScratchDir scratch;
  const std::string root = scratch.path().string();
  make_executable(scratch, "bin/kode-gopherd");
  DaemonSearchPlaces places;
  places.override_path = root + "/missing";
  places.own_executable = root + "/bin/kode-gopher";
  CHECK_THROWS_WITH_AS(find_daemon_binary(places),
                       ("KODE_GOPHERD is set to \"" + root +
                        "/missing\", which is not an executable file: point it at kode-gopherd "
                        "or unset it")
                           .c_str(),
                       DaemonUnavailableError);
}

TEST_CASE("nothing found names every place it looked") {
  ScratchDir scratch;
  const std::string root = scratch.path().string();
  DaemonSearchPlaces places;
  places.own_executable = root + "/a/b/kode-gopher";
  places.path_variable = root + "/p1:" + root + "/p2";
  CHECK_THROWS_WITH_AS(find_daemon_binary(places),
                       ("Cannot find kode-gopherd: looked at $KODE_GOPHERD (not set), " + root +
                        "/a/b/kode-gopherd, " + root + "/a/daemon/kode-gopherd and on $PATH (" +
                        root + "/p1:" + root +
                        "/p2): install kode-gopherd next to kode-gopher or set KODE_GOPHERD to "
                        "its path")
                           .c_str(),
                       DaemonUnavailableError);
}
