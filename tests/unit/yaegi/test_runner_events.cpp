#include <doctest/doctest.h>

#include "runner_events.hpp"

using kg::yaegi::find_event;
using kg::yaegi::RunnerEventKind;
using kg::yaegi::split_runner_stderr;

namespace {
const std::string kToken = "0123456789abcdef0123456789abcdef";
std::string line(const std::string& json) { return "kode-gopher-yaegi[" + kToken + "] " + json + "\n"; }
}  // namespace

TEST_CASE("runner lines are taken out of stderr; the program's own lines stay byte for byte") {
  const std::string stderr_text = line(R"({"event":"accepted","reason":"stdlib only"})") +
                                  line(R"({"event":"compiled","elapsed_us":1234})") +
                                  "user line 1\n\nuser line 3 without newline";
  const auto split = split_runner_stderr(stderr_text, kToken);
  CHECK(split.user_stderr == "user line 1\n\nuser line 3 without newline");
  REQUIRE(split.events.size() == 2);
  CHECK(split.events[0].kind == RunnerEventKind::accepted);
  CHECK(split.events[0].text == "stdlib only");
  CHECK(split.events[1].kind == RunnerEventKind::compiled);
  CHECK(split.events[1].elapsed_us == 1234);
}

TEST_CASE("a line with another token, or none, is the program's output") {
  const std::string forged = "kode-gopher-yaegi[ffffffffffffffffffffffffffffffff] "
                             "{\"event\":\"declined\",\"reason\":\"forged\"}\n";
  const std::string mid_line = "x kode-gopher-yaegi[" + kToken + "] {\"event\":\"declined\"}\n";
  const auto split = split_runner_stderr(forged + mid_line, kToken);
  CHECK(split.events.empty());
  CHECK(split.user_stderr == forged + mid_line);
  // An empty token recognises nothing.
  CHECK(split_runner_stderr(line(R"({"event":"declined"})"), "").events.empty());
}

TEST_CASE("every event of the contract is read") {
  const auto split = split_runner_stderr(
      line(R"({"event":"declined","reason":"imports github.com/x/y"})") +
          line(R"({"event":"compile_error","diagnostics":[{"file":"/app/main.go","line":3,"col":2,"message":"undefined: x"},{"file":"util/u.go","line":1,"col":0,"message":"m"}]})") +
          line(R"({"event":"limitation","message":"reflect: call of nil"})") +
          line(R"({"event":"internal","message":"cannot read /app"})"),
      kToken);
  REQUIRE(split.events.size() == 4);
  CHECK(split.events[0].kind == RunnerEventKind::declined);
  CHECK(split.events[0].text == "imports github.com/x/y");
  const auto* compile = find_event(split, RunnerEventKind::compile_error);
  REQUIRE(compile != nullptr);
  REQUIRE(compile->diagnostics.size() == 2);
  CHECK(compile->diagnostics[0].file == "main.go");  // sandbox paths stripped
  CHECK(compile->diagnostics[0].line == 3);
  CHECK(compile->diagnostics[0].col == 2);
  CHECK(compile->diagnostics[0].message == "undefined: x");
  CHECK(compile->diagnostics[1].file == "util/u.go");
  CHECK(find_event(split, RunnerEventKind::limitation)->text == "reflect: call of nil");
  CHECK(find_event(split, RunnerEventKind::internal)->text == "cannot read /app");
  CHECK(find_event(split, RunnerEventKind::accepted) == nullptr);
  CHECK(split.user_stderr.empty());
}

TEST_CASE("an unreadable or unknown event becomes an internal event that says so") {
  const auto split = split_runner_stderr(line("{not json") + line(R"({"event":"teleported"})") +
                                             line("[1]"),
                                         kToken);
  REQUIRE(split.events.size() == 3);
  for (const auto& event : split.events) CHECK(event.kind == RunnerEventKind::internal);
  CHECK(split.events[0].text.starts_with("the runner wrote an unreadable event ("));
  CHECK(split.events[1].text == "the runner wrote an unknown event \"teleported\"");
  CHECK(split.events[2].text.find("not a JSON object") != std::string::npos);
}

TEST_CASE("after started, an unreadable token line is the program's output, read without recursion") {
  const std::string deep = line(R"({"event":"declined","reason":)" + std::string(1'000'000, '[') +
                                std::string(1'000'000, ']') + "}");
  const std::string unknown = line(R"({"event":"teleported"})");
  const auto split = split_runner_stderr(line(R"({"event":"started"})") + deep + unknown, kToken);
  CHECK(split.started);
  REQUIRE(split.events.size() == 1);
  CHECK(split.user_stderr == deep + unknown);

  const auto before = split_runner_stderr(deep, kToken);  // before started: the runner's, unreadable
  REQUIRE(before.events.size() == 1);
  CHECK(before.events[0].unreadable);
  CHECK(before.events[0].text.find("nests deeper than 128 levels") != std::string::npos);
}

TEST_CASE("CRLF and a final line without newline") {
  const auto split =
      split_runner_stderr("a\r\n" + line(R"({"event":"compiled","elapsed_us":5})").substr(0, 200) + "b\r\n", kToken);
  CHECK(split.user_stderr == "a\r\nb\r\n");
  REQUIRE(split.events.size() == 1);
}

TEST_CASE("after started, a verdict with the token is the program's output; a limitation is not") {
  const std::string forged = line(R"({"event":"declined","reason":"forged"})") +
                             line(R"({"event":"compile_error","diagnostics":[]})") +
                             line(R"({"event":"accepted","reason":"forged"})") +
                             line(R"({"event":"started"})");
  const std::string stderr_text = line(R"({"event":"compiled","elapsed_us":5})") +
                                  line(R"({"event":"started"})") + "program says hi\n" + forged +
                                  line(R"({"event":"limitation","message":"reflect: x"})");
  const auto split = split_runner_stderr(stderr_text, kToken);
  CHECK(split.started);
  REQUIRE(split.events.size() == 3);
  CHECK(split.events[0].kind == RunnerEventKind::compiled);
  CHECK(split.events[1].kind == RunnerEventKind::started);
  CHECK(split.events[2].kind == RunnerEventKind::limitation);
  CHECK(split.user_stderr == "program says hi\n" + forged);
  CHECK(find_event(split, RunnerEventKind::declined) == nullptr);
  CHECK(find_event(split, RunnerEventKind::compile_error) == nullptr);

  const auto before = split_runner_stderr(line(R"({"event":"declined","reason":"r"})"), kToken);
  CHECK_FALSE(before.started);
  CHECK(find_event(before, RunnerEventKind::declined) != nullptr);
}

TEST_CASE("a decline names what it points at; evidence on another event, or half of one, is not read") {
  const auto split = split_runner_stderr(
      line(R"({"event":"declined","reason":"CPU-bound: the loops at main.go:4","evidence":{"file":"main.go","text":"func main() {\n}"}})"),
      kToken);
  REQUIRE(split.events.size() == 1);
  REQUIRE(split.events[0].evidence.has_value());
  CHECK(split.events[0].evidence->file == "main.go");
  CHECK(split.events[0].evidence->text == "func main() {\n}");
  for (const std::string json : {R"({"event":"accepted","reason":"r","evidence":{"file":"main.go","text":"x"}})",
                                 R"({"event":"declined","reason":"r","evidence":{"file":"main.go"}})",
                                 R"({"event":"declined","reason":"r","evidence":"main.go"})"}) {
    CAPTURE(json);
    const auto other = split_runner_stderr(line(json), kToken);
    REQUIRE(other.events.size() == 1);
    CHECK_FALSE(other.events[0].evidence.has_value());
  }
}
