// Real daemon + real bubblewrap sandbox + real `go build`: one program per outcome.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;
using kg::test::json_string;

namespace {

int int_member(const rapidjson::Value& v, const char* key) {
  auto it = v.FindMember(key);
  REQUIRE(it != v.MemberEnd());
  return it->value.GetInt();
}

bool bool_member(const rapidjson::Value& v, const char* key) {
  auto it = v.FindMember(key);
  REQUIRE(it != v.MemberEnd());
  return it->value.GetBool();
}

}  // namespace

TEST_CASE("programs run in a sandbox and every outcome is reported") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();

  SUBCASE("hello world") {
    const auto r = daemon.execute(session, R"(package main

import "fmt"

func main() { fmt.Println("hello from the sandbox") }
)");
    CHECK(json_string(r, "status") == "ok");
    CHECK(json_string(r, "phase") == "run");
    CHECK(json_string(r, "mode") == "verbatim");
    CHECK(json_string(r, "runtime") == "compiled-go");
    CHECK(json_string(r, "stdout") == "hello from the sandbox\n");
    CHECK(int_member(r, "exit_code") == 0);
    CHECK_FALSE(bool_member(r, "is_error"));
    CHECK(int_member(r, "build_ms") > 0);
  }

  SUBCASE("a compile error stops in phase build with the compiler's message") {
    const auto r = daemon.execute(session, "package main\n\nfunc main() {\n\tundefinedThing()\n}\n");
    CHECK(json_string(r, "status") == "compile_error");
    CHECK(json_string(r, "phase") == "build");
    CHECK(bool_member(r, "is_error"));
    CHECK(json_string(r, "stderr").find("main.go:4:2: undefined: undefinedThing") != std::string::npos);
    const auto& diagnostics = r["diagnostics"];
    REQUIRE(diagnostics.Size() == 1);
    CHECK(json_string(diagnostics[0], "file") == "main.go");
    CHECK(int_member(diagnostics[0], "line") == 4);
    CHECK(int_member(diagnostics[0], "col") == 2);
    CHECK(json_string(diagnostics[0], "message") == "undefined: undefinedThing");
  }

  SUBCASE("a runtime panic") {
    const auto r = daemon.execute(session, "package main\n\nfunc main() { panic(\"boom\") }\n");
    CHECK(json_string(r, "status") == "panic");
    CHECK(json_string(r, "phase") == "run");
    CHECK(int_member(r, "exit_code") == 2);
    CHECK(json_string(r, "stderr").starts_with("panic: boom"));
  }

  SUBCASE("os.Exit(3)") {
    const auto r = daemon.execute(session, R"(package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "leaving with 3")
	os.Exit(3)
}
)");
    CHECK(json_string(r, "status") == "runtime_error");
    CHECK(int_member(r, "exit_code") == 3);
    CHECK(json_string(r, "stderr") == "leaving with 3\n");
  }

  SUBCASE("invalid input is a 400 that says what to fix") {
    const auto response = daemon.post("/v1/sessions/" + session + "/execute",
                                      R"({"files":{"../evil.go":"package main"}})");
    CHECK(response.status == 400);
    CHECK(response.body.find("invalid_input") != std::string::npos);
    CHECK(response.body.find("paths must stay inside the program") != std::string::npos);
  }
}

TEST_CASE("a timeout kills the program and everything it spawned") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto r = daemon.execute(session, R"(package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil { panic(err) }
	// A grandchild in a session of its own, trying to outlive the call.
	escapee := exec.Command("sleep", "1001")
	escapee.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := escapee.Start(); err != nil { panic(err) }
	os.WriteFile("/app/persist/pids", []byte(fmt.Sprintf("%d %d", child.Process.Pid, escapee.Process.Pid)), 0o644)
	for {}
}
)", R"("timeout_ms": 1500)");
  CHECK(json_string(r, "status") == "timeout");
  CHECK(json_string(r, "phase") == "run");
  CHECK(bool_member(r, "is_error"));

  // Same session, same sandbox: neither sleeper may still be alive.
  const auto check = daemon.execute(session, R"(package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile("/app/persist/pids")
	if err != nil { panic(err) }
	var a, b int
	fmt.Sscanf(string(data), "%d %d", &a, &b)
	for _, pid := range []int{a, b} {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			fmt.Printf("alive %d\n", pid)
		} else {
			fmt.Printf("gone\n")
		}
	}
}
)");
  CHECK(json_string(check, "status") == "ok");
  CHECK(json_string(check, "stdout") == "gone\ngone\n");
}

TEST_CASE("the sandbox cannot see the host's home, the daemon's state or its socket") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const char* home = std::getenv("HOME");
  REQUIRE(home != nullptr);
  const std::string secret = std::string(home) + "/.kode-gopher-it-secret";
  { std::ofstream(secret) << "top secret\n"; }
  const auto r = daemon.execute(session, R"(package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	for _, path := range os.Args[1:] { _ = path }
	for _, path := range []string{")" + secret + R"(", ")" + daemon.state_dir() + R"(/kode-gopher.db", "/etc/shadow"} {
		if _, err := os.ReadFile(path); err != nil {
			fmt.Println("denied")
		} else {
			fmt.Println("READ", path)
		}
	}
	if _, err := net.Dial("unix", ")" + daemon.socket_path() + R"("); err != nil {
		fmt.Println("denied")
	} else {
		fmt.Println("CONNECTED to daemon socket")
	}
	if _, err := net.Dial("tcp", "127.0.0.1:22"); err != nil {
		fmt.Println("no network")
	}
}
)");
  std::remove(secret.c_str());
  CHECK(json_string(r, "status") == "ok");
  CHECK(json_string(r, "stdout") == "denied\ndenied\ndenied\ndenied\nno network\n");
}
