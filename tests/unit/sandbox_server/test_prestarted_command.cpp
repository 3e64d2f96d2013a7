// /execute with "prestart" (prestarted_command.hpp): the call's environment and arguments reach
// the command on stdin, the next call is served by a process born after the previous command
// ended and before the next call came, and no ordinary command ever runs beside a waiting
// process.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "running_sandbox_server.hpp"

using kg::net::HttpResponse;
using kg::sandbox::testing::detail_of;
using kg::sandbox::testing::parse_json;
using kg::sandbox::testing::RunningSandboxServer;

namespace {

// At birth: appends its pid to `born`, says which birth it is, then prints its call (stdin) with
// each NUL as a newline: CALL, the empty entry and the arguments (the output cap is small).
constexpr const char* kCommand =
    R"(echo $$ >> born; echo born=$(wc -l < born); tr '\\000' '\\n' | )"
    R"(grep -e '^CALL=' -e '^$' -e '^first$' -e '^--second$')";

std::string prestart_call(const std::string& variable_value, const std::string& limits = "") {
  return std::string(R"({"command": ")") + kCommand + R"(", "env": {"CALL": ")" + variable_value +
         R"("}, "prestart": {"arguments": ["first", "--second"]})" + limits + "}";
}

std::string stdout_of(const HttpResponse& response) {
  REQUIRE_MESSAGE(response.status == 200, response.body);
  const auto answer = parse_json(response.body);
  REQUIRE_MESSAGE(answer["exit_code"].GetInt() == 0, response.body);
  return answer["stdout"].GetString();
}

std::vector<std::string> births(const RunningSandboxServer& sandbox) {
  std::vector<std::string> pids;
  std::ifstream in(sandbox.workdir() / "born");
  for (std::string line; std::getline(in, line);) pids.push_back(line);
  return pids;
}

// Waits (5 s at most) until `count` processes were born.
bool wait_for_births(const RunningSandboxServer& sandbox, std::size_t count) {
  for (int i = 0; i < 500; ++i) {
    if (births(sandbox).size() >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("POST /execute with prestart hands each call to a process born before it") {
  RunningSandboxServer sandbox;

  const std::string first = stdout_of(sandbox.post_json("/execute", prestart_call("one")));
  CHECK(first.starts_with("born=1\n"));  // none waited: started for the call
  CHECK(first.find("\nCALL=one\n") != std::string::npos);
  CHECK(first.ends_with("\n\nfirst\n--second\n"));  // the environment, an empty entry, arguments

  // The next process is born after the answer, before any call asks for it.
  REQUIRE(wait_for_births(sandbox, 2));
  const std::string second = stdout_of(sandbox.post_json("/execute", prestart_call("two")));
  CHECK(second.starts_with("born=2\n"));  // the waiting one took it
  CHECK(second.find("\nCALL=two\n") != std::string::npos);
  CHECK(second.find("CALL=one") == std::string::npos);  // nothing of the previous call

  SUBCASE("an ordinary command never runs beside a waiting process") {
    REQUIRE(wait_for_births(sandbox, 3));
    const pid_t waiting = std::stoi(births(sandbox).back());
    REQUIRE(::kill(waiting, 0) == 0);
    // Seen from the command: gone, or a zombie (killed before the command started, reaped
    // once it has ended).
    const std::string stat = "/proc/" + std::to_string(waiting) + "/stat";
    const auto answer = parse_json(
        sandbox.post_json("/execute", R"({"command": "s=$(sed 's/.*) //' )" + stat +
                                          R"( 2>/dev/null | cut -c1); )"
                                          R"(case \"$s\" in ''|Z|X) echo gone;; *) echo alive $s;; esac"})")
            .body);
    CHECK(answer["stdout"].GetString() == std::string("gone\n"));
    // After it, one is born again for the next prestart call, which takes it.
    REQUIRE(wait_for_births(sandbox, 4));
    const std::string third = stdout_of(sandbox.post_json("/execute", prestart_call("three")));
    CHECK(third.starts_with("born=4\n"));
    CHECK(third.find("\nCALL=three\n") != std::string::npos);
  }
  SUBCASE("a call with other limits does not take a process born with different ones") {
    REQUIRE(wait_for_births(sandbox, 3));
    const std::string third = stdout_of(sandbox.post_json(
        "/execute", prestart_call("three", R"(, "limits": {"open_files": 64})")));
    CHECK(third.starts_with("born=4\n"));
    CHECK(third.find("\nCALL=three\n") != std::string::npos);
  }
}

TEST_CASE("POST /execute refuses a malformed prestart") {
  RunningSandboxServer sandbox;
  for (const auto& [member, message] : std::vector<std::pair<std::string, std::string>>{
           {R"("prestart": [])", R"("prestart" must be an object)"},
           {R"("prestart": {"arguments": [""]})", "holds an empty argument or a NUL byte"},
           {R"("prestart": {"arguments": [1]})", "must hold strings only"},
           {R"("prestart": {"args": []})", R"(unknown key "args")"}}) {
    const HttpResponse response =
        sandbox.post_json("/execute", R"({"command": "true", )" + member + "}");
    CHECK(response.status == 400);
    CHECK_MESSAGE(detail_of(response).find(message) != std::string::npos, detail_of(response));
  }
}

TEST_CASE("a prestart command that ends without reading its call is answered like any command") {
  ::signal(SIGPIPE, SIG_IGN);  // as kode-gopher-sandbox's main does
  RunningSandboxServer sandbox;
  for (int call = 0; call < 2; ++call) {  // started for the call, then prestarted
    const HttpResponse response = sandbox.post_json(
        "/execute",
        R"({"command": "echo cannot start the runner >&2; exit 127", "prestart": {"arguments": ["/app"]}})");
    REQUIRE_MESSAGE(response.status == 200, response.body);
    const auto answer = parse_json(response.body);
    CHECK(answer["exit_code"].GetInt() == 127);
    CHECK(answer["stderr"].GetString() == std::string("cannot start the runner\n"));
  }
}
