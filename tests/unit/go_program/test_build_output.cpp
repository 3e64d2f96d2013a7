#include <doctest/doctest.h>

#include "build_output.hpp"
#include "utf8_text.hpp"
#include "run_outcome.hpp"

using namespace kg::go_program;

TEST_CASE("compiler output becomes diagnostics with the caller's paths") {
  const auto diagnostics = parse_diagnostics(
      "# kode_gopher_user\n"
      "./main.go:5:2: undefined: x\n"
      "/app/greet/greet.go:3:10: cannot use \"a\" (untyped string constant) as int value\n"
      "main.go:7: syntax error: unexpected }\n"
      "note: module requires Go 1.99\n");
  REQUIRE(diagnostics.size() == 3);
  CHECK(diagnostics[0].file == "main.go");
  CHECK(diagnostics[0].line == 5);
  CHECK(diagnostics[0].col == 2);
  CHECK(diagnostics[0].message == "undefined: x");
  CHECK(diagnostics[1].file == "greet/greet.go");
  CHECK(diagnostics[1].col == 10);
  CHECK(diagnostics[2].line == 7);
  CHECK(diagnostics[2].col == 0);
  CHECK(diagnostics[2].message == "syntax error: unexpected }");
}

TEST_CASE("sandbox paths are stripped") {
  CHECK(strip_sandbox_paths("# kode_gopher_user/greet\n/app/greet/x.go:1:1: bad\n") ==
        "# greet\ngreet/x.go:1:1: bad\n");
}

TEST_CASE("long streams keep head and tail") {
  CHECK(elide_middle("short", 8) == "short");
  const std::string text = std::string(10, 'a') + std::string(5, 'b') + std::string(10, 'c');
  CHECK(elide_middle(text, 10) == std::string(10, 'a') + "\n... [5 bytes elided] ...\n" + std::string(10, 'c'));
}

TEST_CASE("long streams are cut between characters, never inside one") {
  // "é" (2 bytes) across the head's cut, "€" (3 bytes) across the tail's.
  const std::string text = std::string(9, 'a') + "\xC3\xA9" + std::string(20, 'b') +
                           "\xE2\x82\xAC" + std::string(8, 'c');
  const std::string elided = elide_middle(text, 10);
  CHECK(elided == std::string(9, 'a') + "\n... [25 bytes elided] ...\n" + std::string(8, 'c'));
  CHECK(kg::json::is_valid_utf8(elided));
}

TEST_CASE("run outcomes are classified") {
  kg::plugin::CommandOutcome outcome;
  CHECK(classify_run(outcome) == kg::plugin::Status::ok);
  outcome.exit_code = 3;
  CHECK(classify_run(outcome) == kg::plugin::Status::runtime_error);
  outcome.exit_code = 2;
  outcome.stderr_text = "panic: boom\n\ngoroutine 1 [running]:\n";
  CHECK(classify_run(outcome) == kg::plugin::Status::panic);
  outcome.exit_code = 137;
  outcome.signal = 9;
  CHECK(classify_run(outcome) == kg::plugin::Status::killed);
  outcome.timed_out = true;
  CHECK(classify_run(outcome) == kg::plugin::Status::timeout);
  kg::plugin::CommandOutcome flood;
  flood.stdout_truncated = true;
  CHECK(classify_run(flood) == kg::plugin::Status::output_limit);
}
