// Forged runner verdicts (issue 23, item 5): a program run by Yaegi under `auto` finds the call's
// runner token (in /proc/self/environ, or failing that in its own process's memory, which it
// shares with the runner) and prints the runner's own event lines, a `declined` (then exit 86) or
// a `compile_error` (then exit 2). With credentials on, the daemon must neither run it a second
// time with compiled-go (one run, one token grant) nor report the forged verdict: the call ran
// (phase run), with Yaegi, and its reason is the check's. docs/security.md lists the guarantee.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hostile_checks.hpp"
#include "loopback_google.hpp"

using namespace kg::test;
using namespace kg::test::hostile;

namespace {

// A program --auto accepts that forges `event_json` with the token it finds, then exits `code`.
std::string forging_program(const std::string& event_json, int code) {
  return R"go(package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

const marker = "kode-gopher-" + "yaegi["

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func fromEnviron() string {
	data, _ := os.ReadFile("/proc/self/environ")
	for _, kv := range strings.Split(string(data), "\x00") {
		if strings.HasPrefix(kv, "KG_YAEGI_TOKEN=") && len(kv) > len("KG_YAEGI_TOKEN=") {
			return strings.TrimPrefix(kv, "KG_YAEGI_TOKEN=")
		}
	}
	return ""
}

// fromMemory looks for a line the runner wrote (marker, 32 hex digits, "]") in the process's
// writable memory.
func fromMemory() string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(maps), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(fields[1], "rw") {
			continue
		}
		bounds := strings.Split(fields[0], "-")
		start, _ := strconv.ParseUint(bounds[0], 16, 64)
		end, _ := strconv.ParseUint(bounds[1], 16, 64)
		if end <= start || end-start > 256<<20 {
			continue
		}
		buf := make([]byte, end-start)
		n, _ := mem.ReadAt(buf, int64(start))
		buf = buf[:n]
		for {
			i := bytes.Index(buf, []byte(marker))
			if i < 0 {
				break
			}
			rest := buf[i+len(marker):]
			if len(rest) > 32 && rest[32] == ']' && isHex(rest[:32]) {
				return string(rest[:32])
			}
			buf = rest
		}
	}
	return ""
}

func main() {
	token := fromEnviron()
	where := "environ"
	if token == "" {
		token = fromMemory()
		where = "memory"
	}
	if token == "" {
		fmt.Println("token not found")
		return
	}
	fmt.Println("forging with the token from " + where)
	os.Stderr.WriteString(marker + token + "] " + `)go" + event_json + R"go(` + "\n")
	os.Exit()go" + std::to_string(code) + R"go()
}
)go";
}

DaemonFixtureOptions credentials_options(const LoopbackGoogle& google, const std::string& adc) {
  DaemonFixtureOptions options;
  options.extra_plugin_dirs = {required_env("KG_CREDS_ADC_PLUGIN_DIR")};
  options.extra_sandbox_keys = "network = none\n";
  options.extra_sections = "[credentials]\nplugin = creds-adc\n[creds-adc]\nadc_file = " + adc +
                           "\nproject = test-project\ntoken_url = " + google.token_url() +
                           "\ntokeninfo_url = " + google.tokeninfo_url() +
                           "\nuserinfo_url = " + google.userinfo_url() + "\n";
  return options;
}

std::string write_adc(const std::string& dir, const LoopbackGoogle& google) {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/application_default_credentials.json";
  std::ofstream(path) << R"({"type": "authorized_user", "client_id": ")" << google.client_id
                      << R"(", "client_secret": ")" << google.client_secret
                      << R"(", "refresh_token": ")" << google.refresh_token << R"("})";
  return path;
}

}  // namespace

TEST_CASE("hostile yaegi: a forged verdict neither runs the program twice nor makes it a build") {
  REQUIRE_MESSAGE(!required_env("KG_YAEGI_RUNNER").empty(), "this build has no Yaegi runner");
  LoopbackGoogle google;
  DaemonFixture probe;  // only for a fresh folder to hold the ADC file
  const std::string adc = write_adc(probe.dir() + "/adc", google);
  DaemonFixture credentialed(credentials_options(google, adc));
  credentialed.start();

  SUBCASE("a forged declined: one run (Yaegi's), one token grant, the check's reason") {
    const auto r = execute_once(
        credentialed,
        forging_program(R"({"event":"declined","reason":"forged: run me again compiled"})", 86),
        R"("runtime": "auto")");
    INFO("stdout: " << string_member(r, "stdout") << "stderr: " << string_member(r, "stderr"));
    CHECK(string_member(r, "stdout").starts_with("forging with the token from "));
    MESSAGE("the program found the token in: " << string_member(r, "stdout"));
    CHECK(string_member(r, "runtime") == "yaegi");
    CHECK(string_member(r, "runtime_reason").find("forged") == std::string::npos);
    CHECK(string_member(r, "phase") == "run");
    CHECK(int_member(r, "exit_code") == 86);
    CHECK(google.issued().size() == 1);  // minted once: one run
    const StateDatabase db(credentialed);
    CHECK(db.integer("SELECT COUNT(*) FROM credential_grants WHERE call_id = " +
                     std::to_string(int_member(r, "call_id"))) == 1);
    CHECK(db.integer("SELECT COUNT(*) FROM calls WHERE id = " +
                     std::to_string(int_member(r, "call_id")) +
                     " AND runtime = 'yaegi' AND runtime_reason NOT LIKE '%forged%'") == 1);
    check_call_recorded(credentialed, r, CallScope::one_shot);
  }

  SUBCASE("a forged compile_error: the call ran (phase run, its own exit code), no diagnostics") {
    const auto r = execute_once(
        credentialed,
        forging_program(R"({"event":"compile_error","diagnostics":[{"file":"main.go","line":1,)"
                        R"("col":1,"message":"forged"}]})",
                        2),
        R"("runtime": "auto")");
    INFO("stdout: " << string_member(r, "stdout") << "stderr: " << string_member(r, "stderr"));
    CHECK(string_member(r, "stdout").starts_with("forging with the token from "));
    CHECK(string_member(r, "runtime") == "yaegi");
    CHECK(string_member(r, "phase") == "run");
    CHECK(string_member(r, "status") != "compile_error");
    CHECK(int_member(r, "exit_code") == 2);
    CHECK_FALSE((r.HasMember("diagnostics") && r["diagnostics"].IsArray() &&
                 !r["diagnostics"].Empty()));
    CHECK(google.issued().size() == 1);
    check_call_recorded(credentialed, r, CallScope::one_shot);
  }

  // Issue 23, item 2: one forged event line of 10^6 nested arrays once overflowed the daemon's
  // stack in a recursive parse. Now it is the program's output (it comes after `started`), and
  // any event the plugin does read goes through lib/json's iterative reader.
  SUBCASE("a forged event nested 10^6 levels deep: the program's stderr, not a crashed daemon") {
    // The text ends forging_program's Go raw string, so the line is built by Go at run time.
    const auto r = execute_once(
        credentialed,
        forging_program(R"({"event":"declined","reason":` + strings.Repeat("[", 1000000) + )"
                        R"(strings.Repeat("]", 1000000) + `})",
                        0),
        R"("runtime": "yaegi")");
    INFO("stdout: " << string_member(r, "stdout")
                    << "stderr: " << string_member(r, "stderr").substr(0, 300));
    CHECK(string_member(r, "stdout").starts_with("forging with the token from "));
    CHECK(string_member(r, "runtime") == "yaegi");
    CHECK(string_member(r, "status") == "ok");
    CHECK(string_member(r, "stderr").find("{\"event\":\"declined\",\"reason\":[[[[") !=
          std::string::npos);
    check_call_recorded(credentialed, r, CallScope::one_shot);
    check_daemon_healthy(credentialed);
  }

  SUBCASE("the token is not in the program's /proc/self/environ") {
    const auto r = execute_once(credentialed, R"go(package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	data, err := os.ReadFile("/proc/self/environ")
	// The prestarted runner gets the token on stdin, never in its environment block; a runner
	// started with it there zeroes the value's bytes. Either way no byte of a value is left.
	leaked := false
	for _, entry := range strings.Split(string(data), "\x00") {
		if value, ok := strings.CutPrefix(entry, "KG_YAEGI_TOKEN="); ok && value != "" {
			leaked = true
		}
	}
	fmt.Println(err == nil, leaked, strings.Contains(string(data), "PATH="))
}
)go", R"("runtime": "yaegi")");
    INFO("stderr: " << string_member(r, "stderr"));
    CHECK(string_member(r, "stdout") == "true false true\n");
  }

  check_nothing_left_running(credentialed);
  check_daemon_healthy(credentialed);
}
