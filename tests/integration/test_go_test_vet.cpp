// `kode-gopher exec --test` and `--vet` against a real daemon, real sandboxes and the real Go
// toolchain: test entries and totals in the text and the JSON, a vet finding as a diagnostic,
// a compile error in a test file as the compiler's, yaegi refused, the action in SQLite.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon_fixture.hpp"
#include "../support/test_json.hpp"

using kg::test::DaemonFixture;
using kg::test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

constexpr const char* kProgram = R"(package main

import "fmt"

func add(a, b int) int { return a + b }

func main() { fmt.Println(add(1, 2)) }
)";

constexpr const char* kTests = R"(package main

import "testing"

func TestAdd(t *testing.T) {
	if add(1, 2) != 3 {
		t.Fatal("add is broken")
	}
}

func TestWrong(t *testing.T) { t.Errorf("got %d, want %d", add(1, 1), 3) }

func TestLater(t *testing.T) { t.Skip("not today") }

func TestTable(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Error("two broke") })
}
)";

std::string query_text(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK);
  std::string all;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    all += reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    all += '\n';
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return all;
}

}  // namespace

TEST_CASE("kode-gopher exec --test and --vet: go test entries, vet diagnostics, refusals") {
  DaemonFixture daemon;
  daemon.start();
  const std::string dir = daemon.dir() + "/prog";
  write(dir + "/main.go", kProgram);
  write(dir + "/main_test.go", kTests);
  std::string out, err;

  // Failing, passing, skipped tests and subtests: text with failures first, exit code 1.
  int code = run_cli({"--config", daemon.config_path(), "exec", "--test", dir}, out, err);
  INFO(out << err);
  CHECK(code == 1);  // exit_codes.cpp: the program failed
  CHECK(out.starts_with("action=test phase=run mode=verbatim runtime=compiled-go exit=1"));
  CHECK(contains(out, "status=test_failed"));
  CHECK(contains(out, "tests: 2 passed, 3 failed, 1 skipped\n── failed tests ──\n"));
  CHECK(contains(out, "FAIL TestWrong ("));
  CHECK(contains(out, "    main_test.go:11: got 2, want 3\n"));
  CHECK(contains(out, "SKIP TestLater: main_test.go:13: not today\n"));
  CHECK(contains(out, "── passed tests ──\nTestAdd, TestTable/one\n"));

  // The same as JSON: one entry per test.
  code = run_cli({"--config", daemon.config_path(), "exec", "--test", "--json", dir}, out, err);
  {
    INFO(out << err);
    kg::json::ReadJson read = kg::test::read_test_json(out);
    REQUIRE_FALSE(read.refused.has_value());
    const rapidjson::Value& result = read.document;
    CHECK(std::string(result["action"].GetString()) == "test");
    CHECK(result["tests"]["passed"].GetUint() == 2);
    CHECK(result["tests"]["failed"].GetUint() == 3);
    CHECK(result["tests"]["skipped"].GetUint() == 1);
    CHECK(result["tests"]["cases"].Size() == 6);
  }

  // A vet finding.
  write(dir + "/main.go", std::string(kProgram) + "\nfunc shout(name string) { fmt.Printf(\"%d\\n\", name) }\n");
  code = run_cli({"--config", daemon.config_path(), "exec", "--vet", dir}, out, err);
  {
    INFO(out << err);
    CHECK(code == 1);
    CHECK(contains(out, "status=vet_findings"));
    CHECK(contains(out, "main.go:9:39: fmt.Printf format %d has arg name of wrong type string (vet: printf)"));
  }

  // A compile error in a test file is a build error.
  write(dir + "/main.go", kProgram);
  write(dir + "/main_test.go", "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { _ = nope }\n");
  code = run_cli({"--config", daemon.config_path(), "exec", "--test", dir}, out, err);
  {
    INFO(out << err);
    CHECK(code == 2);  // exit_codes.cpp: compile error
    CHECK(contains(out, "status=compile_error"));
    CHECK(contains(out, "── diagnostics ──\nmain_test.go:5:32: undefined: nope\n"));
  }

  // yaegi cannot: the daemon says to use compiled-go.
  code = run_cli({"--config", daemon.config_path(), "exec", "--test", "--runtime", "yaegi", dir},
                 out, err);
  {
    INFO(out << err);
    CHECK(code != 0);
    CHECK(contains(err, "action test runs go test, which the yaegi runtime (an interpreter, with "
                        "no go command) cannot: call again with runtime \"compiled-go\""));
  }
  CHECK(run_cli({"--config", daemon.config_path(), "exec", "--test", "--vet", dir}, out, err) != 0);

  // SQLite records each call's action, the one yaegi refused too (status rejected).
  const std::string db = daemon.state_dir() + "/kode-gopher.db";
  CHECK(query_text(db, "SELECT action FROM calls ORDER BY id") == "test\ntest\nvet\ntest\ntest\n");
  CHECK(query_text(db, "SELECT status FROM calls ORDER BY id DESC LIMIT 1") == "rejected\n");
}
