// Output while it runs (docs/daemon-api.md, "Progress"): the real daemon, sandbox and runtimes
// stream a program's lines as it prints them, bounded; the CLI prints them as they come.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_json.hpp"
#include "daemon_fixture.hpp"

using kg::test::DaemonFixture;

namespace {

using Clock = std::chrono::steady_clock;

// Prints a line, sleeps a second, prints another (on stderr).
const char* kTwoLines =
    "package main\nimport (\"fmt\"; \"os\"; \"time\")\nfunc main() { fmt.Println(\"first line\"); "
    "time.Sleep(1200 * time.Millisecond); fmt.Fprintln(os.Stderr, \"second line\") }\n";

struct StreamedLine {
  std::string text;
  Clock::time_point at;
};

std::string json_text_of(const std::string& source) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(source.c_str(), static_cast<rapidjson::SizeType>(source.size()));
  return buffer.GetString();
}

std::vector<StreamedLine> stream_call(DaemonFixture& daemon, const std::string& session,
                                      const std::string& source, const std::string& extra = "",
                                      const std::function<void(const std::string&)>& also = {}) {
  std::vector<StreamedLine> lines;
  const std::string body = R"({"files":{"main.go":)" + json_text_of(source) + "}" + extra + "}";
  const int status = daemon.post_streaming(
      "/v1/sessions/" + session + "/execute", body, [&](const std::string& line) {
        lines.push_back({line, Clock::now()});
        if (also) also(line);
      });
  CHECK(status == 200);
  return lines;
}

rapidjson::Document parsed(const std::string& line) {
  kg::json::ReadJson read = kg::test::read_test_json(line);
  REQUIRE_FALSE(read.refused.has_value());
  return std::move(read.document);
}

// The index of the first line holding `needle`, or -1.
int find_line(const std::vector<StreamedLine>& lines, const std::string& needle) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].text.find(needle) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

void check_two_lines_streamed(const std::vector<StreamedLine>& lines) {
  const int first = find_line(lines, R"({"output":{"stream":"stdout","text":"first line\n"}})");
  const int second = find_line(lines, R"({"output":{"stream":"stderr","text":"second line\n"}})");
  const int result = find_line(lines, R"({"result":)");
  REQUIRE(first >= 0);
  REQUIRE(second > first);
  REQUIRE(result == static_cast<int>(lines.size()) - 1);
  // The first line came while the program slept, not with its result.
  CHECK(lines[static_cast<std::size_t>(result)].at - lines[static_cast<std::size_t>(first)].at >=
        std::chrono::milliseconds(800));
  // The result is the same as without streaming.
  const auto answer = parsed(lines.back().text);
  CHECK(kg::test::json_string(answer["result"], "stdout") == "first line\n");
  CHECK(kg::test::json_string(answer["result"], "stderr").find("second line\n") !=
        std::string::npos);
}

}  // namespace

TEST_CASE("live output: compiled-go streams the program's lines before the result") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto lines = stream_call(daemon, session, kTwoLines);
  check_two_lines_streamed(lines);
  // Only the program's output: nothing of the build is streamed as output.
  for (const auto& line : lines) {
    if (line.text.starts_with(R"({"output":)")) {
      CHECK(line.text.find("go: ") == std::string::npos);
    }
  }
}

TEST_CASE("live output: yaegi streams the program's lines, never the runner's own") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  const auto lines = stream_call(daemon, session, kTwoLines, R"(,"runtime":"yaegi")");
  check_two_lines_streamed(lines);
  CHECK(find_line(lines, "kode-gopher-yaegi[") == -1);
}

TEST_CASE("live output: a flood is bounded, long lines are cut, the result keeps head and tail") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  // 100 MB in 1 MB lines, then a last line.
  const char* flood =
      "package main\nimport (\"bufio\"; \"os\"; \"strings\")\nfunc main() { w := "
      "bufio.NewWriter(os.Stdout); line := strings.Repeat(\"x\", 1<<20) + \"\\n\"; for i := 0; "
      "i < 100; i++ { w.WriteString(line) }; w.WriteString(\"the end\\n\"); w.Flush() }\n";
  std::uint64_t streamed = 0;
  std::uint64_t lines_seen = 0;
  bool cut = false, dropped_for_limit = false;
  std::string result_line;
  const auto lines = stream_call(daemon, session, flood, "", [&](const std::string& line) {
    ++lines_seen;
    const auto message = parsed(line);
    if (message.HasMember("output")) {
      const auto& output = message["output"];
      const std::size_t size = output["text"].GetStringLength();
      CHECK(size <= 8192);
      streamed += size;
      if (output.HasMember("cut") && output["cut"].GetBool()) cut = true;
    } else if (message.HasMember("output_dropped")) {
      if (std::string(message["output_dropped"]["reason"].GetString()) == "limit") {
        dropped_for_limit = true;
      }
    } else if (message.HasMember("result")) {
      result_line = line;
    }
  });
  CHECK(cut);
  // 100 cut heads of 8 KiB, and the last line: far below what was printed.
  CHECK(streamed <= 101 * 8192);
  CHECK(streamed > 0);
  CHECK(lines_seen < 200);
  CHECK_FALSE(dropped_for_limit);  // cut lines count only their heads
  REQUIRE_FALSE(result_line.empty());
  const auto answer = parsed(result_line);
  CHECK(kg::test::json_string(answer["result"], "status") == "output_limit");
  CHECK(kg::test::json_string(answer["result"], "stdout").ends_with("the end\n"));
  CHECK(find_line(lines, R"("text":"the end\n")") >= 0);

  // Many short lines: more than the stream carries for a call; the rest is dropped and said so.
  const char* many =
      "package main\nimport (\"bufio\"; \"fmt\"; \"os\")\nfunc main() { w := "
      "bufio.NewWriter(os.Stdout); for i := 0; i < 2000000; i++ { fmt.Fprintf(w, "
      "\"line %07d of many\\n\", i) }; w.Flush() }\n";
  std::uint64_t many_streamed = 0, many_dropped = 0;
  stream_call(daemon, session, many, "", [&](const std::string& line) {
    const auto message = parsed(line);
    if (message.HasMember("output")) many_streamed += message["output"]["text"].GetStringLength();
    if (message.HasMember("output_dropped")) {
      many_dropped += message["output_dropped"]["bytes"].GetUint64();
    }
  });
  // 42 MB printed; at most twice the 4 MiB output limit streamed, the rest reported dropped.
  CHECK(many_streamed <= 8ull << 20);
  CHECK(many_dropped > 0);
  CHECK(many_streamed + many_dropped == 2000000ull * 21);
}

TEST_CASE("live output: a reader that stops reading does not stall the program") {
  DaemonFixture daemon;
  daemon.start();
  const auto session = daemon.open_session();
  // 21 MB of short lines, then the time it took to print them.
  const char* busy =
      "package main\nimport (\"bufio\"; \"fmt\"; \"os\"; \"time\")\nfunc main() { start := "
      "time.Now(); w := bufio.NewWriter(os.Stdout); for i := 0; i < 1000000; i++ { "
      "fmt.Fprintf(w, \"line %07d of many\\n\", i) }; w.Flush(); fmt.Fprintf(os.Stderr, "
      "\"took %dms\\n\", time.Since(start).Milliseconds()) }\n";
  bool slept = false;
  std::uint64_t dropped_slow = 0;
  std::string result_line;
  stream_call(daemon, session, busy, "", [&](const std::string& line) {
    const auto message = parsed(line);
    if (!slept && message.HasMember("output")) {
      slept = true;
      std::this_thread::sleep_for(std::chrono::seconds(4));  // a reader that fell behind
    }
    if (message.HasMember("output_dropped") &&
        std::string(message["output_dropped"]["reason"].GetString()) == "slow_reader") {
      dropped_slow += message["output_dropped"]["bytes"].GetUint64();
    }
    if (message.HasMember("result")) result_line = line;
  });
  CHECK(dropped_slow > 0);
  REQUIRE_FALSE(result_line.empty());
  const auto answer = parsed(result_line);
  // More than the output limit, printed to the end: the result keeps the head and the tail.
  CHECK(kg::test::json_string(answer["result"], "status") == "output_limit");
  // The program printed at its own pace, not the reader's.
  const std::string took = kg::test::json_string(answer["result"], "stderr");
  REQUIRE(took.starts_with("took "));
  CHECK(std::stoi(took.substr(5)) < 4000);
}

TEST_CASE("live output: kode-gopher exec --stream prints the first line before it exits") {
  DaemonFixture daemon;
  daemon.start();
  const std::string program = daemon.dir() + "/two_lines.go";
  std::ofstream(program) << kTwoLines;
  int out_pipe[2];
  REQUIRE(::pipe(out_pipe) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    const std::string cli = kg::test::required_env("KG_CLI");
    const std::string config = daemon.config_path();
    ::execl(cli.c_str(), cli.c_str(), "--config", config.c_str(), "exec", "--stream",
            program.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  std::string out;
  std::optional<Clock::time_point> first_line_at;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(out_pipe[0], buffer, sizeof buffer);
    if (got <= 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
    if (!first_line_at && out.find("first line\n") != std::string::npos) first_line_at = Clock::now();
  }
  ::close(out_pipe[0]);
  const auto ended_at = Clock::now();
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(first_line_at.has_value());
  CHECK(ended_at - *first_line_at >= std::chrono::milliseconds(800));
  // Printed once: live, not again in the result.
  CHECK(out.find("first line\n") == out.rfind("first line\n"));
  CHECK(out.find("── stdout ──") == std::string::npos);
  CHECK(out.find("phase=run") != std::string::npos);

  // Without --stream and not on a terminal: the result carries the output, as before.
  std::string plain_out, plain_err;
  CHECK(kg::test::run_cli({"--config", daemon.config_path(), "exec", program}, plain_out,
                          plain_err) == 0);
  CHECK(plain_out.find("── stdout ──\nfirst line\n") != std::string::npos);
}
