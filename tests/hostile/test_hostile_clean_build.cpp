// Builds whose output reaches the binary cache, within one session: they read nothing an earlier
// call wrote outside /app (the GOCACHEPROG layer, go env, /tmp, /dev/shm, /persist), while
// /app/persist keeps a session's own files for its programs (docs/security.md, "Clean builds").
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "hostile_checks.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

std::string stdout_of(const rapidjson::Value& result) { return string_member(result, "stdout"); }

// A program that plants files wherever a later build might read them.
constexpr const char* kPlanter = R"(package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func plant(path string) {
	os.MkdirAll(filepath.Dir(path), 0755)
	if err := os.WriteFile(path, []byte("planted"), 0644); err != nil {
		fmt.Println("cannot plant", path, err)
		return
	}
	fmt.Println("planted", path)
}

func main() {
	home, _ := os.UserHomeDir()
	plant(home + "/.cache/kode-gopher-upper/planted-entry")
	plant(home + "/.config/go/env")
	plant("/tmp/planted")
	plant("/dev/shm/planted")
	plant("/persist/evil/go.mod")
	os.WriteFile("/persist/evil/go.mod", []byte("module evil\n\ngo 1.21\n"), 0644)
	os.WriteFile("/persist/evil/evil.go", []byte("package evil\n\nconst Word = \"evil\"\n"), 0644)
}
)";

// Run right after a build in the same sandbox: what of the planted files the build could see.
constexpr const char* kLooker = R"(package main

import (
	"fmt"
	"os"
)

func main() {
	home, _ := os.UserHomeDir()
	for _, path := range []string{home + "/.cache/kode-gopher-upper/planted-entry",
		home + "/.config/go/env", "/tmp/planted", "/dev/shm/planted"} {
		if _, err := os.Stat(path); err == nil {
			fmt.Println("survived", path)
		}
	}
	fmt.Println("looked")
}
)";

}  // namespace

TEST_CASE("hostile boundary: a build reads nothing an earlier call of the session wrote") {
  HostileDaemon daemon;
  daemon.start();
  const std::string session = daemon->open_session();
  const auto planted = daemon->execute(session, kPlanter);
  INFO("planter: " << stdout_of(planted) << string_member(planted, "stderr"));
  REQUIRE(string_member(planted, "status") == "ok");
  CHECK(stdout_of(planted).find("planted /tmp/planted") != std::string::npos);
  // A different program, so it is built (not a binary-cache hit) in the same sandbox.
  const auto looked = daemon->execute(session, kLooker);
  INFO("looker: " << stdout_of(looked) << string_member(looked, "stderr"));
  CHECK_FALSE(looked["cache_hit"].GetBool());
  CHECK(stdout_of(looked) == "looked\n");
  // A build whose go.mod points into the persist folder cannot read it: what reaches the binary
  // cache is built only from what the call uploaded.
  const std::string uses_persist = R"(package main

import (
	"fmt"
	"evil"
)

func main() { fmt.Println(evil.Word) }
)";
  const auto response = daemon->post(
      "/v1/sessions/" + session + "/execute",
      execute_body({{"main.go", uses_persist},
                    {"go.mod", "module m\n\ngo 1.21\n\nrequire evil v0.0.0\n\nreplace evil => /persist/evil\n"}}));
  REQUIRE(response.status == 200);
  const auto built = daemon->json(response);
  INFO("persist build: " << stdout_of(built) << string_member(built, "stderr"));
  CHECK(string_member(built, "status") == "compile_error");
  CHECK(stdout_of(built).find("evil") == std::string::npos);
  daemon->del("/v1/sessions/" + session);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}

TEST_CASE("hostile boundary: /app/persist keeps a session's files across calls, the rest of /app is reset") {
  HostileDaemon daemon;
  daemon.start();
  const std::string session = daemon->open_session();
  const auto first = daemon->execute(session, R"(package main

import "os"

func main() {
	os.WriteFile("/app/persist/notes.txt", []byte("kept"), 0644)
	os.WriteFile("/app/scratch.txt", []byte("gone"), 0644)
}
)");
  REQUIRE(string_member(first, "status") == "ok");
  const auto second = daemon->execute(session, R"(package main

import (
	"fmt"
	"os"
)

func main() {
	kept, err := os.ReadFile("/app/persist/notes.txt")
	fmt.Println(string(kept), err)
	_, err = os.Stat("/app/scratch.txt")
	fmt.Println(os.IsNotExist(err))
}
)");
  INFO(string_member(second, "stderr"));
  CHECK(stdout_of(second) == "kept <nil>\ntrue\n");
  daemon->del("/v1/sessions/" + session);
  // Another session starts with an empty persist folder.
  const auto other = execute_once(daemon.fixture(), R"(package main

import (
	"fmt"
	"os"
)

func main() {
	_, err := os.ReadFile("/app/persist/notes.txt")
	fmt.Println(os.IsNotExist(err))
}
)");
  CHECK(stdout_of(other) == "true\n");
  check_daemon_healthy(daemon.fixture());
}

