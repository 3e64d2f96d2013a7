#include <doctest/doctest.h>

#include "yaegi_run_result.hpp"

using kg::plugin::CommandOutcome;
using kg::plugin::CommandSpec;
using kg::plugin::ExecuteResult;
using kg::plugin::Handoff;
using kg::plugin::Phase;
using kg::plugin::Status;
using kg::yaegi::fill_result;
using kg::yaegi::YaegiRun;

namespace {
const std::string kToken = "feedfacefeedfacefeedfacefeedface";
std::string line(const std::string& json) { return "kode-gopher-yaegi[" + kToken + "] " + json + "\n"; }

ExecuteResult result_of(const CommandOutcome& outcome, bool auto_select, std::uint64_t elapsed_us = 10'000) {
  CommandSpec spec;
  spec.timeout_ms = 900;
  ExecuteResult result;
  fill_result(YaegiRun{outcome, spec, kToken, auto_select, elapsed_us}, result);
  return result;
}
}  // namespace

TEST_CASE("a run that ends well: run phase, the compile time is build_us, the reason is kept") {
  CommandOutcome ran;
  ran.stdout_text = "hi\n";
  ran.stderr_text = line(R"({"event":"accepted","reason":"standard library only"})") +
                    line(R"({"event":"compiled","elapsed_us":3000})") + "note\n";
  const auto r = result_of(ran, true);
  CHECK(r.status == Status::ok);
  CHECK(r.phase == Phase::run);
  CHECK(r.handoff == Handoff::none);
  CHECK(r.runtime_reason == "standard library only");
  CHECK(r.build_us == 3000);
  CHECK(r.run_us == 7000);
  CHECK(r.stdout_text == "hi\n");
  CHECK(r.stderr_text == "note\n");
}

TEST_CASE("exit codes are the program's, a panic is a panic, a timeout a timeout") {
  CommandOutcome exit3;
  exit3.exit_code = 3;
  exit3.stderr_text = line(R"({"event":"compiled","elapsed_us":1})");
  CHECK(result_of(exit3, false).status == Status::runtime_error);
  CHECK(result_of(exit3, false).exit_code == 3);

  CommandOutcome panicked;
  panicked.exit_code = 2;
  panicked.stderr_text = line(R"({"event":"compiled","elapsed_us":1})") + "panic: boom\n\ngoroutine 1 [running]:\n";
  const auto p = result_of(panicked, false);
  CHECK(p.status == Status::panic);
  CHECK(p.stderr_text.starts_with("panic: boom"));

  CommandOutcome slow;
  slow.timed_out = true;
  slow.exit_code = 137;
  slow.signal = 9;
  slow.stderr_text = line(R"({"event":"compiled","elapsed_us":1})");
  const auto t = result_of(slow, false);
  CHECK(t.status == Status::timeout);
  REQUIRE(t.warnings.size() == 1);
  CHECK(t.warnings[0] ==
        "the program ran longer than 900 ms and was stopped: ask for a longer limit with "
        "timeout_ms (up to 600000, the daemon's [limits] max_run_timeout_ms), stop in time by "
        "giving run's ctx a deadline (context.WithTimeout) and checking it in loops, or do less "
        "per call (work in batches and keep progress under /app/persist for the next call)");
}

TEST_CASE("a compile error is phase build with the runner's diagnostics") {
  CommandOutcome ran;
  ran.exit_code = 2;
  ran.stderr_text = line(R"({"event":"compile_error","diagnostics":[{"file":"main.go","line":2,"col":15,"message":"declared and not used: x"}]})");
  const auto r = result_of(ran, false);
  CHECK(r.status == Status::compile_error);
  CHECK(r.phase == Phase::build);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message == "declared and not used: x");
  CHECK(r.stderr_text.empty());
}

TEST_CASE("auto: declined hands off with the reason; a program's own exit 86 does not") {
  CommandOutcome ran;
  ran.exit_code = 86;
  ran.stderr_text = line(R"({"event":"declined","reason":"json.Marshal of a struct value"})");
  const auto r = result_of(ran, true);
  CHECK(r.handoff == Handoff::declined);
  CHECK(r.runtime_reason == "json.Marshal of a struct value");

  CommandOutcome own;
  own.exit_code = 86;
  own.stderr_text = line(R"({"event":"accepted","reason":"ok"})") + line(R"({"event":"compiled","elapsed_us":1})");
  const auto mine = result_of(own, true);
  CHECK(mine.handoff == Handoff::none);
  CHECK(mine.exit_code == 86);
  CHECK(mine.status == Status::runtime_error);
}

TEST_CASE("an interpreter limitation or runner failure hands off under auto and warns") {
  CommandOutcome ran;
  ran.exit_code = 87;
  ran.stderr_text = line(R"({"event":"accepted","reason":"ok"})") +
                    line(R"({"event":"compiled","elapsed_us":1})") +
                    line(R"({"event":"limitation","message":"reflect.Value.Call on interpreted method"})");
  const auto r = result_of(ran, true);
  CHECK(r.handoff == Handoff::limitation);
  CHECK(r.status == Status::internal);
  CHECK(r.runtime_reason == "reflect.Value.Call on interpreted method");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "the Yaegi interpreter cannot run this program: reflect.Value.Call on interpreted method; "
        "run it with runtime compiled-go (or auto)");

  CommandOutcome broken;
  broken.exit_code = 70;
  broken.stderr_text = line(R"({"event":"internal","message":"cannot read /app"})");
  const auto b = result_of(broken, false);
  CHECK(b.status == Status::internal);
  CHECK(b.runtime_reason == "the Yaegi runner failed: cannot read /app");
}

TEST_CASE("auto without any verdict (the runner died first) is not blamed on the program") {
  CommandOutcome ran;
  ran.exit_code = 127;
  ran.stderr_text = "sh: kode-gopher-yaegi: not found\n";
  const auto r = result_of(ran, true);
  CHECK(r.handoff == Handoff::limitation);
  CHECK(r.runtime_reason == "the Yaegi runner gave no verdict (exit code 127)");
}

TEST_CASE("wrapped mode: the result.json read after the run is checked like compiled-go's") {
  CommandOutcome ran;
  ran.exit_code = 0;
  ran.stderr_text = line(R"({"event":"compiled","elapsed_us":1})");
  ran.file_after = kg::plugin::FileAfterCommand{true, R"({"kind":"ok","value":{"n":1}})", ""};
  const auto r = result_of(ran, false);
  REQUIRE(r.result_json);
  CHECK(*r.result_json == R"({"kind":"ok","value":{"n":1}})");

  CommandOutcome panicked;
  panicked.exit_code = 1;
  panicked.file_after = kg::plugin::FileAfterCommand{true, R"({"kind":"panic","message":"x","stack":"s"})", ""};
  CHECK(result_of(panicked, false).status == Status::panic);
}

TEST_CASE("an import Yaegi has no symbols for says so and names the runtime that can") {
  CommandOutcome ran;
  ran.exit_code = 2;
  ran.stderr_text = line(R"({"event":"compile_error","diagnostics":[{"file":"main.go","line":2,"col":8,"message":"import \"github.com/google/uuid\" error: unable to find source related to: \"github.com/google/uuid\""}]})");
  const auto r = result_of(ran, false);
  CHECK(r.status == Status::compile_error);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "Yaegi has only the standard library and the curated packages compiled in, and "
        "\"github.com/google/uuid\" is neither; run this program with runtime compiled-go (or "
        "auto), which builds any module");
}

TEST_CASE("a standard library package Yaegi cannot interpret is not called missing from it") {
  CommandOutcome ran;
  ran.exit_code = 2;
  ran.stderr_text = line(R"({"event":"compile_error","diagnostics":[{"file":"main.go","line":3,"col":8,"message":"import \"unsafe\" error: unable to find source related to: \"unsafe\""}]})");
  const auto r = result_of(ran, false);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "\"unsafe\" is in Go's standard library, but Yaegi cannot interpret it (it works below "
        "the language); run this program with runtime compiled-go, or auto, which picks "
        "compiled-go for it");
}

TEST_CASE("a crash inside the interpreter (Yaegi's frames in the trace) is not the program's") {
  CommandOutcome ran;
  ran.exit_code = 2;
  ran.stderr_text = line(R"({"event":"accepted","reason":"ok"})") +
                    line(R"({"event":"compiled","elapsed_us":1})") +
                    "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [select]:\n"
                    "reflect.rselect({0x2e0d457113e8, 0x3, 0x7f95239cd8c0?})\n"
                    "github.com/traefik/yaegi/interp._select.func4(0x2e0d445b5290)\n";
  const auto automatic = result_of(ran, true);
  CHECK(automatic.handoff == Handoff::limitation);
  CHECK(automatic.runtime_reason ==
        "the interpreter crashed: fatal error: all goroutines are asleep - deadlock!");
  const auto explicit_run = result_of(ran, false);
  CHECK(explicit_run.handoff == Handoff::none);
  CHECK(explicit_run.status == Status::runtime_error);
  REQUIRE(explicit_run.warnings.size() == 1);
  CHECK(explicit_run.warnings[0] ==
        "the program stopped with a Go runtime error inside the Yaegi interpreter's own code "
        "(fatal error: all goroutines are asleep - deadlock!); compiled Go may behave "
        "differently: run it with runtime compiled-go to be sure");
  // A program's own deadlock, compiled or interpreted, names no Yaegi frame: its own result.
  CommandOutcome own;
  own.exit_code = 2;
  own.stderr_text = line(R"({"event":"accepted","reason":"ok"})") +
                    "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n";
  CHECK(result_of(own, true).handoff == Handoff::none);
  // A panic in a goroutine shows Yaegi's frames as well; it is still the program's panic.
  CommandOutcome goroutine_panic;
  goroutine_panic.exit_code = 2;
  goroutine_panic.stderr_text = line(R"({"event":"accepted","reason":"ok"})") +
                                "panic: in goroutine [recovered, repanicked]\n\ngoroutine 9 [running]:\n"
                                "github.com/traefik/yaegi/interp.runCfg.func1()\n";
  const auto p = result_of(goroutine_panic, true);
  CHECK(p.handoff == Handoff::none);
  CHECK(p.status == Status::panic);
  CHECK(p.warnings.empty());
}

TEST_CASE("a verdict the program forges after started changes nothing: it ran, phase run") {
  const std::string prologue = line(R"({"event":"accepted","reason":"standard library only"})") +
                               line(R"({"event":"compiled","elapsed_us":1})") +
                               line(R"({"event":"started"})");
  CommandOutcome declined;
  declined.exit_code = 86;
  declined.stderr_text = prologue + line(R"({"event":"declined","reason":"forged"})");
  const auto d = result_of(declined, true);
  CHECK(d.handoff == Handoff::none);
  CHECK(d.program_started);
  CHECK(d.phase == Phase::run);
  CHECK(d.status == Status::runtime_error);
  CHECK(d.runtime_reason == "standard library only");
  CHECK(d.stderr_text.find("forged") != std::string::npos);

  CommandOutcome failed;
  failed.exit_code = 2;
  failed.stderr_text =
      prologue + line(R"({"event":"compile_error","diagnostics":[{"file":"main.go","line":1,"col":1,"message":"forged"}]})");
  for (const bool auto_select : {false, true}) {
    const auto c = result_of(failed, auto_select);
    CHECK(c.phase == Phase::run);
    CHECK(c.status != Status::compile_error);
    CHECK(c.diagnostics.empty());
    CHECK(c.program_started);
  }
}

TEST_CASE("program_started is false only on the runner's word before started") {
  CommandOutcome declined;
  declined.exit_code = 86;
  declined.stderr_text = line(R"({"event":"declined","reason":"imports x"})");
  CHECK_FALSE(result_of(declined, true).program_started);

  CommandOutcome rejected;
  rejected.exit_code = 2;
  rejected.stderr_text = line(R"({"event":"compile_error","diagnostics":[]})");
  CHECK_FALSE(result_of(rejected, false).program_started);

  CommandOutcome failed_late;
  failed_late.exit_code = 87;
  failed_late.stderr_text = line(R"({"event":"started"})") +
                            line(R"({"event":"limitation","message":"reflect: x"})");
  const auto late = result_of(failed_late, false);
  CHECK(late.program_started);
  CHECK(late.phase == Phase::run);

  CommandOutcome cut;  // an output limit that cut `started` off: the program may have run
  cut.exit_code = 70;
  cut.stderr_truncated = true;
  cut.stderr_text = line(R"({"event":"accepted","reason":"r"})") + "kode-gopher-yaegi[" + kToken + "] {\"ev";
  CHECK(result_of(cut, true).program_started);

  CommandOutcome no_word;  // the runner's lines cut off: the program may have run
  no_word.exit_code = 1;
  no_word.stderr_text = "kode-gopher-";
  CHECK(result_of(no_word, true).program_started);
}
