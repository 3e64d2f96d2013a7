// The readers of go test -json and go vet -json output, on the exact text Go 1.26 prints
// (captured from a real toolchain), and the tree actions test and vet work on.
#include <doctest/doctest.h>

#include "go_test_report.hpp"
#include "go_tool_program.hpp"
#include "go_vet_report.hpp"

using namespace kg::go_program;
using kg::plugin::Action;
using kg::plugin::InvalidInputError;
using kg::plugin::TestOutcome;

namespace {

std::string event(const std::string& action, const std::string& test, const std::string& output = "",
                  const std::string& extra = "") {
  std::string line = R"({"Action":")" + action + R"(","Package":"kode_gopher_user")";
  if (!test.empty()) line += R"(,"Test":")" + test + "\"";
  if (!output.empty()) line += R"(,"Output":")" + output + "\"";
  return line + extra + "}\n";
}

}  // namespace

TEST_CASE("go test -json: one entry per test and subtest, framing lines left out") {
  const std::string text =
      event("start", "") + event("run", "TestAdd") +
      event("output", "TestAdd", "=== RUN   TestAdd\\n") +
      event("output", "TestAdd", "    main_test.go:9: add works\\n") +
      event("output", "TestAdd", "--- PASS: TestAdd (0.00s)\\n") +
      event("pass", "TestAdd", "", R"(,"Elapsed":0.25)") + event("run", "TestT") +
      event("run", "TestT/two") + event("output", "TestT/two", "    main_test.go:15: two broke\\n") +
      event("output", "TestT/two", "    --- FAIL: TestT/two (0.00s)\\n") + event("fail", "TestT/two") +
      event("fail", "TestT") + event("run", "TestS") +
      event("output", "TestS", "    main_test.go:12: not today\\n") + event("skip", "TestS") +
      event("output", "", "FAIL\\n") + event("fail", "", "", R"(,"Elapsed":0.04)");
  const GoTestReport report = read_go_test_events(text);
  REQUIRE(report.tests.size() == 4);
  CHECK(report.tests[0].name == "TestAdd");
  CHECK(report.tests[0].package == "kode_gopher_user");
  CHECK(report.tests[0].outcome == TestOutcome::pass);
  CHECK(report.tests[0].elapsed_ms == 250);
  CHECK(report.tests[0].output == "    main_test.go:9: add works\n");
  CHECK(report.tests[1].name == "TestT/two");
  CHECK(report.tests[1].outcome == TestOutcome::fail);
  CHECK(report.tests[1].output == "    main_test.go:15: two broke\n");
  CHECK(report.tests[2].name == "TestT");
  CHECK(report.tests[3].outcome == TestOutcome::skip);
  CHECK(report.any_failed);
  CHECK_FALSE(report.build_failed);
  CHECK(report.failed_packages.empty());  // it has a failed test
  CHECK(report.other_output == "FAIL\n");
}

TEST_CASE("go test -json: a test file that does not compile is a build failure with its text") {
  const std::string text =
      R"({"ImportPath":"kode_gopher_user [kode_gopher_user.test]","Action":"build-output","Output":"# kode_gopher_user [kode_gopher_user.test]\n"})" "\n"
      R"({"ImportPath":"kode_gopher_user [kode_gopher_user.test]","Action":"build-output","Output":"./b_test.go:2:17: undefined: thing\n"})" "\n"
      R"({"ImportPath":"kode_gopher_user [kode_gopher_user.test]","Action":"build-fail"})" "\n" +
      event("fail", "", "", R"(,"FailedBuild":"kode_gopher_user [kode_gopher_user.test]")");
  const GoTestReport report = read_go_test_events(text);
  CHECK(report.build_failed);
  CHECK(report.tests.empty());
  CHECK(report.build_output.find("./b_test.go:2:17: undefined: thing\n") != std::string::npos);
}

TEST_CASE("go test -json: a test the binary died under is a failure saying so; a package failing alone is named") {
  const std::string text = event("run", "TestHang") +
                           event("output", "TestHang", "    started\\n") +
                           event("output", "", "panic: test timed out after 1s\\n") +
                           event("fail", "");
  const GoTestReport report = read_go_test_events(text + "not an event\n");
  REQUIRE(report.tests.size() == 1);
  CHECK(report.tests[0].outcome == TestOutcome::fail);
  CHECK(report.tests[0].output.find("did not finish") != std::string::npos);
  CHECK(report.failed_packages == std::vector<std::string>{"kode_gopher_user"});
  CHECK(report.other_output.find("panic: test timed out") != std::string::npos);
  CHECK(report.other_output.find("not an event\n") != std::string::npos);
}

TEST_CASE("go test -json: a test's output is bounded, head and tail") {
  std::string text = event("run", "TestLoud");
  for (int i = 0; i < 2000; ++i) text += event("output", "TestLoud", "line " + std::to_string(i) + "\\n");
  text += event("pass", "TestLoud");
  const GoTestReport report = read_go_test_events(text);
  REQUIRE(report.tests.size() == 1);
  CHECK(report.tests[0].output.size() < 2 * kTestOutputKeep + 100);
  CHECK(report.tests[0].output.starts_with("line 0\n"));
  CHECK(report.tests[0].output.ends_with("line 1999\n"));
}

TEST_CASE("go vet -json: findings with their analyzer; a compile error as the compiler's") {
  const auto report = read_go_vet_output(
      "# kode_gopher_user\n"
      "{\n"
      "\t\"kode_gopher_user\": {\n"
      "\t\t\"printf\": [\n"
      "\t\t\t{\n"
      "\t\t\t\t\"posn\": \"/app/main.go:7:2\",\n"
      "\t\t\t\t\"end\": \"/app/main.go:7:16\",\n"
      "\t\t\t\t\"message\": \"fmt.Printf format %d has arg name of wrong type string\"\n"
      "\t\t\t}\n"
      "\t\t]\n"
      "\t}\n"
      "}\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].file == "main.go");
  CHECK(report.findings[0].line == 7);
  CHECK(report.findings[0].col == 2);
  CHECK(report.findings[0].analyzer == "printf");
  CHECK(report.findings[0].message == "fmt.Printf format %d has arg name of wrong type string");
  CHECK(report.compile_errors.empty());

  const auto broken = read_go_vet_output("# kode_gopher_user\nvet: ./b_test.go:2:17: undefined: thing\n");
  CHECK(broken.findings.empty());
  REQUIRE(broken.compile_errors.size() == 1);
  CHECK(broken.compile_errors[0].file == "b_test.go");
  CHECK(broken.compile_errors[0].message == "undefined: thing");
}

TEST_CASE("the tree of test and vet: any root package, tests required for test, said how") {
  const std::vector<kg::plugin::SourceFile> library = {
      {"calc.go", "package calc\n\nfunc Double(x int) int { return 2 * x }\n"},
      {"calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {}\n"}};
  const auto program = normalize_for_go_tool(library, {}, Action::test);
  CHECK(program.files.size() == 2);  // nothing wrapped, nothing added
  CHECK(program.mode == kg::plugin::Mode::verbatim);
  CHECK_NOTHROW(normalize_for_go_tool({library[0]}, {}, Action::vet));
  CHECK_THROWS_WITH_AS(normalize_for_go_tool({library[0]}, {}, Action::test),
                       doctest::Contains("none were sent: add one, e.g. \"main_test.go\""),
                       InvalidInputError);
  const kg::plugin::SourceFile snippet{
      "main.go", "package snippet\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) { return 1, nil }\n"};
  CHECK_THROWS_WITH_AS(normalize_for_go_tool({snippet}, {}, Action::test),
                       doctest::Contains("this snippet (package snippet, func run) has none"),
                       InvalidInputError);
  CHECK_THROWS_WITH_AS(normalize_for_go_tool(library, {"golang.org/x/sync/errgroup"}, Action::test),
                       doctest::Contains("extra_imports is for running a program"), InvalidInputError);
  CHECK_THROWS_WITH_AS(
      normalize_for_go_tool({{"main.go", "package main\n\nimport \"C\"\n\nfunc main() {}\n"}}, {}, Action::vet),
      doctest::Contains("cgo is not available"), InvalidInputError);
}
