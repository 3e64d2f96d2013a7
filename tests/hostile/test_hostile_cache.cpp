// A program that rewrites its own binary while it runs must not poison the binary cache, which
// every later session shares: the daemon copies the built file into the cache while the program
// runs, so it first makes the file its own and read-only, copies through a descriptor that keeps
// the original even when the program replaces the path, and drops a copy whose source changed.
#include <doctest/doctest.h>
#include <unistd.h>

#include "hostile_checks.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

std::string self_rewriting_program(const std::string& marker) {
  // After exec the binary is no longer busy (no ETXTBSY): only its owner and mode stop the shell.
  return R"(package main

import (
	"fmt"
	"os"
	"syscall"
)

// )" + marker + R"(
const rewrite = `chmod u+w "$0" 2>/dev/null && echo "chmod: done" || echo "chmod: refused"
(printf 'poisoned' > "$0") 2>/dev/null && echo "write: done" || echo "write: refused"
rm -f "$0" 2>/dev/null; printf '#!/bin/sh\necho poisoned\n' > "$0" 2>/dev/null; chmod +x "$0" 2>/dev/null
exit 0`

func main() {
	exe, _ := os.Executable()
	fmt.Println("original")
	os.Stdout.Sync()
	err := syscall.Exec("/bin/sh", []string{"sh", "-c", rewrite, exe}, os.Environ())
	fmt.Println("exec failed:", err)
}
)";
}

}  // namespace

TEST_CASE("hostile cache: a program rewriting its own binary while it runs cannot poison the cache") {
  HostileDaemon daemon;
  daemon.start();
  const std::string source = self_rewriting_program(unique_marker("kg-self-rewrite-"));
  const auto first = execute_once(daemon.fixture(), source);
  INFO("first: stdout=" << string_member(first, "stdout") << " stderr=" << string_member(first, "stderr"));
  CHECK(string_member(first, "status") == "ok");
  CHECK_FALSE(first["cache_hit"].GetBool());
  CHECK(string_member(first, "stdout").starts_with("original\n"));
  if (::geteuid() == 0) {
    // A root daemon's sandbox user is another host uid (65534): the built file was made the
    // daemon's, read and execute only, before the program ran.
    CHECK(string_member(first, "stdout") == "original\nchmod: refused\nwrite: refused\n");
  }
  // The same program again, in another session and sandbox: the cached binary is the original.
  const auto second = execute_once(daemon.fixture(), source);
  INFO("second: stdout=" << string_member(second, "stdout") << " stderr=" << string_member(second, "stderr"));
  CHECK(second["cache_hit"].GetBool());
  CHECK(string_member(second, "status") == "ok");
  CHECK(string_member(second, "stdout").starts_with("original\n"));
  CHECK(string_member(second, "stdout").find("poisoned") == std::string::npos);
  check_call_recorded(daemon.fixture(), first, CallScope::one_shot);
  check_call_recorded(daemon.fixture(), second, CallScope::one_shot);
  check_daemon_healthy(daemon.fixture());
  check_nothing_left_running(daemon.fixture());
}
